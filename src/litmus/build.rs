//! A parsed litmus test into a [`Scenario`]: placement, memory, programs, condition.

use std::collections::{HashMap, HashSet};

use super::barrier;
use super::error::LitmusError;
use super::instr::{Cell, LitmusInstr};
use super::parser::{Init, LitmusTest};
use crate::model::{
    Alias, Cluster, Cond, Cta, FinalCondition, Instr, Location, Operand, Scenario, Space, Term,
    Thread,
};

/// Size of a litmus location: Dat3M's values are machine words; 4 bytes like the default.
const LOCATION_SIZE: u32 = 4;

pub fn build(test: LitmusTest) -> Result<Scenario, LitmusError> {
    let (clusters, ctas, thread_ctas) = placement(&test);
    let mut locations = declared_locations(&test.inits)?;
    for program in &test.programs {
        for cell in program {
            for name in addresses(cell) {
                add_location(&mut locations, name);
            }
        }
    }
    if let Some(cond) = &test.condition {
        check_condition(&cond.cond, &test, &mut locations)?;
    }
    let reg_inits = register_inits(&test)?;
    let cta_names: Vec<String> = ctas.iter().map(|c| c.name.clone()).collect();
    let taken: HashSet<String> = locations.iter().map(|l| l.name.clone()).collect();
    let lowered = barrier::lower(&test.programs, &thread_ctas, &reg_inits, &cta_names, &taken)?;
    let mut threads = Vec::new();
    for (index, (header, body)) in test.threads.iter().zip(lowered.programs).enumerate() {
        check_labels(&body, header.id, header.line)?;
        let mut program = register_prelude(&test.inits, header.id);
        program.extend(body);
        let cta = thread_ctas.get(index).copied().unwrap_or_default();
        threads.push(Thread {
            name: format!("P{}", header.id),
            cta,
            lanes: 1,
            program,
        });
    }
    Ok(Scenario {
        title: Some(test.name),
        clusters,
        ctas,
        locations,
        mbarriers: lowered.mbarriers,
        threads,
        expect: Vec::new(),
        conditions: test.condition.into_iter().collect::<Vec<FinalCondition>>(),
    })
}

/// One CTA per distinct `(cta, gpu)`, each in its own cluster on that GPU. The cluster
/// takes the CTA's name, as the implicit cluster of a lone `.fence` CTA does.
fn placement(test: &LitmusTest) -> (Vec<Cluster>, Vec<Cta>, Vec<usize>) {
    let multi_gpu = test.threads.iter().any(|t| t.gpu != 0);
    let mut keys: Vec<(u32, u32)> = Vec::new();
    let mut thread_ctas = Vec::new();
    for t in &test.threads {
        let key = (t.cta, t.gpu);
        let index = keys.iter().position(|k| *k == key).unwrap_or_else(|| {
            keys.push(key);
            keys.len() - 1
        });
        thread_ctas.push(index);
    }
    let (mut clusters, mut ctas) = (Vec::new(), Vec::new());
    for (index, (cta, gpu)) in keys.into_iter().enumerate() {
        let name = if multi_gpu {
            format!("gpu{gpu}_cta{cta}")
        } else {
            format!("cta{cta}")
        };
        clusters.push(Cluster {
            name: name.clone(),
            gpu,
        });
        ctas.push(Cta {
            name,
            cluster: index,
        });
    }
    (clusters, ctas, thread_ctas)
}

fn declared_locations(inits: &[Init]) -> Result<Vec<Location>, LitmusError> {
    let mut locations: Vec<Location> = Vec::new();
    for init in inits {
        let (name, line) = match init {
            Init::Location { name, line, .. } | Init::Alias { name, line, .. } => (name, *line),
            Init::Register { .. } => continue,
        };
        if locations.iter().any(|l| &l.name == name) {
            return Err(LitmusError::syntax(
                line,
                format!("location `{name}` is declared twice"),
            ));
        }
        let location = match init {
            Init::Alias { target, proxy, .. } => {
                let aliased = locations
                    .iter()
                    .find(|l| &l.name == target)
                    .ok_or_else(|| {
                        LitmusError::syntax(
                            line,
                            format!("`{name}` aliases `{target}`, which is not declared before it"),
                        )
                    })?;
                Location {
                    name: name.clone(),
                    space: Space::Global,
                    size: LOCATION_SIZE,
                    init: aliased.init,
                    alias: Some(Alias {
                        target: target.clone(),
                        proxy: *proxy,
                    }),
                }
            }
            Init::Location { value, .. } => global(name, *value),
            Init::Register { .. } => continue,
        };
        locations.push(location);
    }
    Ok(locations)
}

fn global(name: &str, init: i64) -> Location {
    Location {
        name: name.to_string(),
        space: Space::Global,
        size: LOCATION_SIZE,
        init,
        alias: None,
    }
}

/// Locations used without a declaration start at 0, as in Dat3M.
fn add_location(locations: &mut Vec<Location>, name: &str) {
    if !locations.iter().any(|l| l.name == name) {
        locations.push(global(name, 0));
    }
}

fn addresses(cell: &Cell) -> Vec<&str> {
    match &cell.instr {
        LitmusInstr::Plain(Instr::Ld { addr, .. })
        | LitmusInstr::Plain(Instr::St { addr, .. })
        | LitmusInstr::Plain(Instr::Atom { addr, .. }) => vec![addr.as_str()],
        _ => Vec::new(),
    }
}

fn check_condition(
    cond: &Cond,
    test: &LitmusTest,
    locations: &mut Vec<Location>,
) -> Result<(), LitmusError> {
    match cond {
        Cond::True => Ok(()),
        Cond::Not(inner) => check_condition(inner, test, locations),
        Cond::And(parts) | Cond::Or(parts) => parts
            .iter()
            .try_for_each(|p| check_condition(p, test, locations)),
        Cond::Cmp(a, _, b) => {
            for term in [a, b] {
                match term {
                    Term::Reg { thread, .. } => {
                        if !test.threads.iter().any(|t| &format!("P{}", t.id) == thread) {
                            return Err(LitmusError::syntax(
                                test.threads.last().map_or(1, |t| t.line),
                                format!("the condition names thread `{thread}`, which the test does not have"),
                            ));
                        }
                    }
                    Term::Mem(name) => add_location(locations, name),
                    Term::Imm(_) => {}
                }
            }
            Ok(())
        }
    }
}

fn register_inits(test: &LitmusTest) -> Result<Vec<HashMap<String, i64>>, LitmusError> {
    let mut inits: Vec<HashMap<String, i64>> =
        test.threads.iter().map(|_| HashMap::new()).collect();
    for init in &test.inits {
        if let Init::Register {
            thread,
            reg,
            value,
            line,
        } = init
        {
            let index = test
                .threads
                .iter()
                .position(|t| t.id == *thread)
                .ok_or_else(|| {
                    LitmusError::syntax(
                        *line,
                        format!("register of thread `P{thread}`, which the test does not have"),
                    )
                })?;
            if let Some(map) = inits.get_mut(index) {
                map.insert(reg.clone(), *value);
            }
        }
    }
    Ok(inits)
}

/// Registers start at 0 in Dat3M and in the checker; other initial values become `mov`s.
fn register_prelude(inits: &[Init], thread: u32) -> Vec<Instr> {
    inits
        .iter()
        .filter_map(|init| match init {
            Init::Register {
                thread: t,
                reg,
                value,
                ..
            } if *t == thread && *value != 0 => Some(Instr::Mov {
                dst: reg.clone(),
                src: Operand::Imm(*value),
            }),
            _ => None,
        })
        .collect()
}

fn check_labels(program: &[Instr], thread: u32, line: usize) -> Result<(), LitmusError> {
    let mut labels = HashSet::new();
    for instr in program {
        if let Instr::Label(label) = instr {
            if !labels.insert(label.as_str()) {
                return Err(LitmusError::syntax(
                    line,
                    format!("label `{label}` appears twice in `P{thread}`"),
                ));
            }
        }
    }
    for instr in program {
        if let Instr::Branch { target, .. } = instr {
            if !labels.contains(target.as_str()) {
                return Err(LitmusError::syntax(
                    line,
                    format!("`P{thread}` jumps to unknown label `{target}`"),
                ));
            }
        }
    }
    Ok(())
}
