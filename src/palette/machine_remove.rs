//! Removing machine items: refused while something uses the item (saying who and on
//! which line), else the item goes and every index after it, in the model and in the
//! comment anchors, moves down by one.

use std::cmp::Ordering;

use super::error::EditError;
use super::machine::{cluster_index, cta_index, Item};
use super::machine_refs::{cluster_content, cta_content, instr_user, memory_user, thread_user, Lines};
use crate::model::{Scenario, Space};
use crate::syntax::{Anchor, SourceMap};

pub(super) fn remove(s: &mut Scenario, map: &mut SourceMap, src: &str, item: &Item) -> Result<(), EditError> {
    let lines = Lines { src, map };
    match item {
        Item::Thread(name) => {
            let at = s.thread(name).ok_or_else(|| EditError::Unknown(item.clone()))?;
            in_use(name, thread_user(s, &lines, name))?;
            s.threads.remove(at);
            fix_comments(map, |a| match a {
                Anchor::Thread(t) => shift(t, at).map(Anchor::Thread),
                Anchor::Instr(t, i) => shift(t, at).map(|t| Anchor::Instr(t, i)),
                other => Some(other),
            });
        }
        Item::Location(name) => {
            let at = s.location(name).ok_or_else(|| EditError::Unknown(item.clone()))?;
            in_use(name, memory_user(s, &lines, name))?;
            s.locations.remove(at);
            fix_comments(map, |a| match a {
                Anchor::Location(l) => shift(l, at).map(Anchor::Location),
                other => Some(other),
            });
        }
        Item::Mbarrier(name) => {
            let at = s.mbarrier(name).ok_or_else(|| EditError::Unknown(item.clone()))?;
            in_use(name, instr_user(s, &lines, name))?;
            s.mbarriers.remove(at);
            fix_comments(map, |a| match a {
                Anchor::Mbarrier(m) => shift(m, at).map(Anchor::Mbarrier),
                other => Some(other),
            });
        }
        Item::Cta(name) => {
            let at = cta_index(s, name)?;
            not_empty(name, cta_content(s, &lines, at))?;
            let cluster = s.cluster_of(at);
            s.ctas.remove(at);
            let fix = |c: &mut usize| *c = shift(*c, at).unwrap_or(*c);
            s.threads.iter_mut().for_each(|t| fix(&mut t.cta));
            s.mbarriers.iter_mut().for_each(|m| fix(&mut m.cta));
            for l in &mut s.locations {
                if let Space::Shared(c) | Space::Tmem(c) = &mut l.space {
                    fix(c);
                }
            }
            fix_comments(map, |a| match a {
                Anchor::Cta(c) => shift(c, at).map(Anchor::Cta),
                other => Some(other),
            });
            if let Some(cluster) = cluster {
                drop_implicit_cluster(s, map, cluster, name);
            }
        }
        Item::Cluster(name) => {
            let at = cluster_index(s, name)?;
            not_empty(name, cluster_content(s, &lines, at))?;
            remove_cluster(s, map, at);
        }
    }
    Ok(())
}

/// Removes cluster `at` (nothing may be in it) and renumbers the CTAs' cluster indices.
fn remove_cluster(s: &mut Scenario, map: &mut SourceMap, at: usize) {
    if at >= s.clusters.len() {
        return;
    }
    s.clusters.remove(at);
    for c in &mut s.ctas {
        c.cluster = shift(c.cluster, at).unwrap_or(c.cluster);
    }
    fix_comments(map, |a| match a {
        Anchor::Cluster(c) => shift(c, at).map(Anchor::Cluster),
        other => Some(other),
    });
}

fn in_use(name: &str, user: Option<String>) -> Result<(), EditError> {
    user.map_or(Ok(()), |user| Err(EditError::InUse { name: name.to_string(), user }))
}

fn not_empty(name: &str, content: Option<String>) -> Result<(), EditError> {
    content.map_or(Ok(()), |content| Err(EditError::NotEmpty { name: name.to_string(), content }))
}

/// Index `i` after removing index `removed`; `None` for the removed one.
fn shift(i: usize, removed: usize) -> Option<usize> {
    match i.cmp(&removed) {
        Ordering::Less => Some(i),
        Ordering::Equal => None,
        Ordering::Greater => Some(i - 1),
    }
}

/// Re-anchors every comment by `fix`; comments it maps to `None` go with their item.
fn fix_comments(map: &mut SourceMap, fix: impl Fn(Anchor) -> Option<Anchor>) {
    map.comments.retain_mut(|c| match fix(c.anchor) {
        Some(anchor) => {
            c.anchor = anchor;
            true
        }
        None => false,
    });
}

/// Removes `cluster` once it is empty and was the implicit cluster of CTA `cta_name`.
pub(super) fn drop_implicit_cluster(s: &mut Scenario, map: &mut SourceMap, cluster: usize, cta_name: &str) {
    let empty = s.ctas.iter().all(|c| c.cluster != cluster);
    if empty && s.clusters.get(cluster).is_some_and(|c| c.name == cta_name) {
        remove_cluster(s, map, cluster);
    }
}
