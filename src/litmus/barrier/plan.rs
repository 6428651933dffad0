//! Deciding, per logical barrier, between `bar.sync` and an mbarrier, and its count.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use super::collect::Uses;
use super::{Key, Use};
use crate::litmus::error::LitmusError;
use crate::model::Mbarrier;

/// PTX has 16 barrier resources per CTA.
const BARRIERS_PER_CTA: i64 = 16;

/// What every use of one logical barrier becomes.
pub enum Lowering {
    /// `bar.sync id`: all threads of the CTA.
    Bar {
        id: i64,
    },
    Mbar {
        name: String,
    },
}

pub struct Plan {
    pub lowerings: BTreeMap<Key, Lowering>,
    pub mbarriers: Vec<Mbarrier>,
}

pub fn plan(
    uses: &Uses,
    cta_sizes: &BTreeMap<usize, usize>,
    cta_names: &[String],
    taken_names: &HashSet<String>,
) -> Result<Plan, LitmusError> {
    let mut by_key: BTreeMap<Key, Vec<&Use>> = BTreeMap::new();
    let mut order: Vec<Key> = Vec::new();
    for u in &uses.fixed {
        if !by_key.contains_key(&u.key) {
            order.push(u.key);
        }
        by_key.entry(u.key).or_default().push(u);
    }
    let mut dynamic_instances = BTreeSet::new();
    for d in &uses.dynamic {
        if !dynamic_instances.insert((d.cta, d.instance)) {
            return Err(LitmusError::unsupported(
                Some(d.line),
                format!(
                    "two threads compute the resource id of barrier instance {} at run time",
                    d.instance
                ),
            ));
        }
    }
    let mut used_ids: BTreeMap<usize, BTreeSet<i64>> = BTreeMap::new();
    let mut names = taken_names.clone();
    let mut plan = Plan {
        lowerings: BTreeMap::new(),
        mbarriers: Vec::new(),
    };
    for key in order {
        let group = by_key.get(&key).map(Vec::as_slice).unwrap_or_default();
        let first_line = group.first().map(|u| u.line);
        let threads: BTreeSet<usize> = group.iter().map(|u| u.thread).collect();
        if threads.len() != group.len() {
            return Err(LitmusError::unsupported(
                first_line,
                "a thread reaches the same barrier twice (Dat3M makes every occurrence wait for all the others)",
            ));
        }
        let quorums: BTreeSet<Option<i64>> = group.iter().map(|u| u.quorum).collect();
        let [quorum] = quorums.into_iter().collect::<Vec<_>>()[..] else {
            return Err(LitmusError::unsupported(
                first_line,
                "uses of one barrier with different quorums",
            ));
        };
        let (cta, instance, resource) = key;
        // A run-time resource id of this instance may pick this barrier: one more arrival.
        let extra = usize::from(resource.is_some() && dynamic_instances.contains(&(cta, instance)));
        if extra > 0 && quorum.is_some() {
            return Err(LitmusError::unsupported(
                first_line,
                "a quorum on a barrier that a run-time resource id may also pick",
            ));
        }
        let members = threads.len();
        let holders = i64::try_from(members).unwrap_or(i64::MAX);
        let whole_cta = cta_sizes.get(&cta) == Some(&members);
        let all_sync = group.iter().all(|u| !u.arrive && !u.skippable);
        if extra == 0 && whole_cta && all_sync && quorum.is_none_or(|q| q == holders) {
            let taken = used_ids.entry(cta).or_default();
            let natural = resource.unwrap_or(instance);
            let id = if (0..BARRIERS_PER_CTA).contains(&natural) && !taken.contains(&natural) {
                natural
            } else {
                (0..BARRIERS_PER_CTA)
                    .find(|i| !taken.contains(i))
                    .ok_or_else(|| {
                        LitmusError::unsupported(
                            first_line,
                            "more than 16 distinct barriers in one CTA",
                        )
                    })?
            };
            taken.insert(id);
            plan.lowerings.insert(key, Lowering::Bar { id });
            continue;
        }
        let count = quorum
            .unwrap_or(holders)
            .saturating_add(i64::from(extra > 0));
        let count = u32::try_from(count)
            .map_err(|_| LitmusError::unsupported(first_line, "quorum too large"))?;
        let cta_name = cta_names.get(cta).cloned().unwrap_or_default();
        let resource = resource.map_or(String::new(), |r| format!("_{r}"));
        let mut name = format!("bar{instance}{resource}_{cta_name}").replace('-', "m");
        while names.contains(&name) {
            name.push('_');
        }
        names.insert(name.clone());
        plan.mbarriers.push(Mbarrier {
            name: name.clone(),
            cta,
            count: Some(count),
        });
        plan.lowerings.insert(key, Lowering::Mbar { name });
    }
    Ok(plan)
}
