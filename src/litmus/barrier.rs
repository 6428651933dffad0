//! Dat3M's CTA barriers, lowered to the model's `bar` and mbarrier instructions.
//!
//! Dat3M (`VisitorLitmusPTX`, `ProgramEncoder`, `NamedBarrier`) reads
//! `bar.cta.sync I{, R{, Q}}` as: `I` a constant *instance* id, `R` a *resource* id
//! (a value or register), `Q` a *quorum*. Barriers of one CTA meet when they have the same
//! `I` and the same value of `R` (plain and resource-id barriers never meet each other).
//! - Without `Q`, a barrier completes when every thread of the CTA whose program holds
//!   that barrier has reached it: the participants are those threads, not the whole CTA.
//! - With `Q`, it completes once `Q` of them synchronize; the others then pass too and
//!   only acquire (an edge goes from every synchronizing barrier to every executed one).
//!   `Q` above the number of participants never completes.
//! - `arrive` is a source only, as in PTX; it does not wait.
//!
//! Lowering: when every thread of the CTA takes part, none arrives only, and any quorum
//! equals the participants, it is PTX's own `bar.sync id`. Otherwise it is an mbarrier
//! with expected count `Q` (or the number of participants): `arrive.release.cta`, then
//! for `sync` a wait for phase 0 with `.acquire.cta`. Late arrivers land in phase 1 and
//! pass at once, acquiring from the quorum, as Dat3M's non-synchronizing members do. A
//! counted `bar.sync id, n` is not used: litmus threads have one lane and PTX counts whole
//! warps, so such a count would be undefined behaviour.
//!
//! Not expressible, hence reported unsupported: `R` or `Q` computed at run time (which
//! threads meet would depend on values), a barrier reached twice by one thread (twice in
//! the program, or inside a loop), and mixed quorums on one barrier.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use super::error::LitmusError;
use super::instr::{BarrierUse, Cell, LitmusInstr};
use crate::model::{AddrSpace, BarKind, Instr, MbarKind, MbarOp, Mbarrier, Operand, Scope, Sem};

/// PTX has 16 barrier resources per CTA.
const BARRIERS_PER_CTA: i64 = 16;

/// (CTA, instance, resource) identifies one logical barrier.
type Key = (usize, i64, Option<i64>);

struct Use {
    arrive: bool,
    thread: usize,
    pos: usize,
    line: usize,
    key: Key,
    quorum: Option<i64>,
}

pub struct Lowered {
    pub programs: Vec<Vec<Instr>>,
    pub mbarriers: Vec<Mbarrier>,
}

/// `thread_ctas[t]` is thread `t`'s CTA; `reg_inits[t]` its declared register values;
/// `taken_names` are names mbarriers must not reuse.
pub fn lower(
    programs: &[Vec<Cell>],
    thread_ctas: &[usize],
    reg_inits: &[HashMap<String, i64>],
    cta_names: &[String],
    taken_names: &HashSet<String>,
) -> Result<Lowered, LitmusError> {
    let mut uses = Vec::new();
    for (thread, program) in programs.iter().enumerate() {
        let written = written_registers(program);
        let loops = loop_ranges(program);
        let empty = HashMap::new();
        let inits = reg_inits.get(thread).unwrap_or(&empty);
        let cta = thread_ctas.get(thread).copied().unwrap_or_default();
        for (pos, cell) in program.iter().enumerate() {
            let LitmusInstr::Barrier(bar) = &cell.instr else { continue };
            if loops.iter().any(|(start, end)| (*start..=*end).contains(&pos)) {
                return Err(LitmusError::unsupported(
                    Some(cell.line),
                    "a barrier inside a loop (Dat3M unrolls it; each pass would need its own barrier)",
                ));
            }
            let resolve = |operand: &Option<Operand>, what: &str| {
                resolve(operand, &written, inits, cell.line, what)
            };
            let key = (cta, bar.instance, resolve(&bar.resource, "resource id")?);
            let quorum = resolve(&bar.quorum, "quorum")?;
            if quorum.is_some_and(|q| q < 1) {
                return Err(LitmusError::unsupported(Some(cell.line), "a barrier quorum below 1"));
            }
            uses.push(Use { arrive: bar.arrive, thread, pos, line: cell.line, key, quorum });
        }
    }
    let mut cta_sizes: BTreeMap<usize, usize> = BTreeMap::new();
    for cta in thread_ctas {
        *cta_sizes.entry(*cta).or_default() += 1;
    }
    let (plan, mbarriers) = plan(&uses, &cta_sizes, cta_names, taken_names)?;
    let keys: HashMap<(usize, usize), Key> = uses.iter().map(|u| ((u.thread, u.pos), u.key)).collect();
    let mut lowered = Vec::new();
    for (thread, program) in programs.iter().enumerate() {
        let mut out = Vec::new();
        for (pos, cell) in program.iter().enumerate() {
            match &cell.instr {
                LitmusInstr::Plain(instr) => out.push(instr.clone()),
                LitmusInstr::Barrier(bar) => {
                    let lowering = keys.get(&(thread, pos)).and_then(|k| plan.get(k));
                    let lowering = lowering.ok_or_else(|| {
                        LitmusError::unsupported(Some(cell.line), "barrier could not be placed")
                    })?;
                    out.extend(lowering.instrs(bar));
                }
            }
        }
        lowered.push(out);
    }
    Ok(Lowered { programs: lowered, mbarriers })
}

/// What every use of one logical barrier becomes.
enum Lowering {
    /// `bar.sync id`: all threads of the CTA.
    Bar { id: i64 },
    Mbar { name: String },
}

impl Lowering {
    fn instrs(&self, bar: &BarrierUse) -> Vec<Instr> {
        let name = match self {
            Lowering::Bar { id } => {
                return vec![Instr::Bar { kind: BarKind::Sync, id: Operand::Imm(*id), count: None, sugar: None }]
            }
            Lowering::Mbar { name } => name,
        };
        let op = |kind, sem| MbarOp {
            kind,
            sem: Some(sem),
            scope: Some(Scope::Cta),
            space: Some(AddrSpace::SharedCta),
            bar: name.clone(),
        };
        let arrive = MbarKind::Arrive { count: None, expect_tx: None, no_complete: false, drop: false, state: None };
        let mut out = vec![Instr::Mbar(op(arrive, Sem::Release))];
        if !bar.arrive {
            let wait = MbarKind::Wait { blocking: true, parity: true, phase: Operand::Imm(0), dst: None };
            out.push(Instr::Wait { instr: Box::new(Instr::Mbar(op(wait, Sem::Acquire))), until: None });
        }
        out
    }
}

fn plan(
    uses: &[Use],
    cta_sizes: &BTreeMap<usize, usize>,
    cta_names: &[String],
    taken_names: &HashSet<String>,
) -> Result<(BTreeMap<Key, Lowering>, Vec<Mbarrier>), LitmusError> {
    let mut by_key: BTreeMap<Key, Vec<&Use>> = BTreeMap::new();
    let mut order: Vec<Key> = Vec::new();
    for u in uses {
        if !by_key.contains_key(&u.key) {
            order.push(u.key);
        }
        by_key.entry(u.key).or_default().push(u);
    }
    let mut used_ids: BTreeMap<usize, BTreeSet<i64>> = BTreeMap::new();
    let mut names = taken_names.clone();
    let (mut plan, mut mbarriers) = (BTreeMap::new(), Vec::new());
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
            return Err(LitmusError::unsupported(first_line, "uses of one barrier with different quorums"));
        };
        let (cta, instance, resource) = key;
        let members = threads.len();
        let count = quorum.unwrap_or(i64::try_from(members).unwrap_or(i64::MAX));
        let whole_cta = cta_sizes.get(&cta) == Some(&members);
        let all_sync = group.iter().all(|u| !u.arrive);
        if whole_cta && all_sync && i64::try_from(members).ok() == Some(count) {
            let taken = used_ids.entry(cta).or_default();
            let natural = resource.unwrap_or(instance);
            let id = if (0..BARRIERS_PER_CTA).contains(&natural) && !taken.contains(&natural) {
                natural
            } else {
                (0..BARRIERS_PER_CTA).find(|i| !taken.contains(i)).ok_or_else(|| {
                    LitmusError::unsupported(first_line, "more than 16 distinct barriers in one CTA")
                })?
            };
            taken.insert(id);
            plan.insert(key, Lowering::Bar { id });
            continue;
        }
        let cta_name = cta_names.get(cta).cloned().unwrap_or_default();
        let resource = resource.map_or(String::new(), |r| format!("_{r}"));
        let mut name = format!("bar{instance}{resource}_{cta_name}").replace('-', "m");
        while names.contains(&name) {
            name.push('_');
        }
        names.insert(name.clone());
        let count = u32::try_from(count).map_err(|_| LitmusError::unsupported(first_line, "quorum too large"))?;
        mbarriers.push(Mbarrier { name: name.clone(), cta, count: Some(count) });
        plan.insert(key, Lowering::Mbar { name });
    }
    Ok((plan, mbarriers))
}

/// The value of a barrier operand, which must be known before the run.
fn resolve(
    operand: &Option<Operand>,
    written: &HashSet<String>,
    inits: &HashMap<String, i64>,
    line: usize,
    what: &str,
) -> Result<Option<i64>, LitmusError> {
    match operand {
        None => Ok(None),
        Some(Operand::Imm(v)) => Ok(Some(*v)),
        Some(Operand::Reg(r)) if !written.contains(r) => Ok(Some(inits.get(r).copied().unwrap_or(0))),
        Some(Operand::Reg(r)) => Err(LitmusError::unsupported(
            Some(line),
            format!(
                "barrier {what} in register `{r}` is computed at run time; Dat3M lets threads whose \
                 ids differ pass separately, which fixed barrier counts cannot express"
            ),
        )),
    }
}

fn written_registers(program: &[Cell]) -> HashSet<String> {
    program
        .iter()
        .filter_map(|cell| match &cell.instr {
            LitmusInstr::Plain(Instr::Ld { dst, .. })
            | LitmusInstr::Plain(Instr::Mov { dst, .. })
            | LitmusInstr::Plain(Instr::Add { dst, .. }) => Some(dst.clone()),
            LitmusInstr::Plain(Instr::Atom { dst, .. }) => dst.clone(),
            _ => None,
        })
        .collect()
}

/// `(label position, branch position)` of every backward branch.
fn loop_ranges(program: &[Cell]) -> Vec<(usize, usize)> {
    let labels: HashMap<&str, usize> = program
        .iter()
        .enumerate()
        .filter_map(|(i, c)| match &c.instr {
            LitmusInstr::Plain(Instr::Label(l)) => Some((l.as_str(), i)),
            _ => None,
        })
        .collect();
    program
        .iter()
        .enumerate()
        .filter_map(|(i, c)| match &c.instr {
            LitmusInstr::Plain(Instr::Branch { target, .. }) => {
                labels.get(target.as_str()).filter(|&&l| l <= i).map(|&l| (l, i))
            }
            _ => None,
        })
        .collect()
}
