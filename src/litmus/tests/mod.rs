//! Importer tests on small litmus texts in Dat3M's syntax.

mod barriers;
mod errors;

use super::*;
use crate::model::{
    AtomOp, CmpOp, Cond, Fence, FenceSem, Instr, Operand, Proxy, ProxyKind, Quantifier, Scope, Sem,
    Space, Term,
};

fn imm(v: i64) -> Operand {
    Operand::Imm(v)
}

fn reg(r: &str) -> Operand {
    Operand::Reg(r.to_string())
}

fn term(thread: &str, r: &str) -> Term {
    Term::Reg {
        thread: thread.to_string(),
        reg: r.to_string(),
    }
}

const MP: &str = r#"PTX MP-cta
"Message passing, with a comment
over two lines"
{
x=0;
y=0;
P1:r1=0;
P1:r2=7;
}
 P0@cta 0,gpu 0         | P1@cta 1, gpu 1        ;
 st.weak x, 1           | ld.acquire.cta r1, y   ;
 st.release.cta y, 1    | ld.weak r2, x          ;
exists
(P1:r1 == 1 /\ P1:r2 != 1)"#;

#[test]
fn placement_memory_and_accesses() {
    let s = import(MP).unwrap();
    assert_eq!(s.title.as_deref(), Some("MP-cta"));
    let ctas: Vec<(&str, usize)> = s
        .ctas
        .iter()
        .map(|c| (c.name.as_str(), c.cluster))
        .collect();
    assert_eq!(ctas, vec![("gpu0_cta0", 0), ("gpu1_cta1", 1)]);
    let gpus: Vec<u32> = s.clusters.iter().map(|c| c.gpu).collect();
    assert_eq!(gpus, vec![0, 1]);
    let threads: Vec<(&str, usize, u32)> = s
        .threads
        .iter()
        .map(|t| (t.name.as_str(), t.cta, t.lanes))
        .collect();
    assert_eq!(threads, vec![("P0", 0, 1), ("P1", 1, 1)]);
    assert!(s
        .locations
        .iter()
        .all(|l| l.space == Space::Global && l.init == 0 && l.alias.is_none()));
    assert_eq!(
        s.locations
            .iter()
            .map(|l| l.name.as_str())
            .collect::<Vec<_>>(),
        vec!["x", "y"]
    );
    assert_eq!(
        s.threads[0].program,
        vec![
            Instr::St {
                sem: Some(Sem::Weak),
                scope: None,
                space: None,
                proxy: Proxy::Generic,
                addr: "x".into(),
                src: imm(1)
            },
            Instr::St {
                sem: Some(Sem::Release),
                scope: Some(Scope::Cta),
                space: None,
                proxy: Proxy::Generic,
                addr: "y".into(),
                src: imm(1)
            },
        ]
    );
    // The non-zero register initial value becomes a `mov` before the program.
    assert_eq!(
        s.threads[1].program[0],
        Instr::Mov {
            dst: "r2".into(),
            src: imm(7)
        }
    );
    assert_eq!(
        s.threads[1].program[1],
        Instr::Ld {
            sem: Some(Sem::Acquire),
            scope: Some(Scope::Cta),
            space: None,
            proxy: Proxy::Generic,
            dst: "r1".into(),
            addr: "y".into()
        }
    );
    let cond = &s.conditions[0];
    assert_eq!(cond.quantifier, Quantifier::Exists);
    assert_eq!(
        cond.cond,
        Cond::And(vec![
            Cond::Cmp(term("P1", "r1"), CmpOp::Eq, Term::Imm(1)),
            Cond::Cmp(term("P1", "r2"), CmpOp::Ne, Term::Imm(1)),
        ])
    );
}

fn one_thread(init: &str, body: &str, cond: &str) -> String {
    format!("PTX t\n{{\n{init}\n}}\n P0@cta 0,gpu 0 ;\n{body}\n{cond}")
}

#[test]
fn single_gpu_names_and_undeclared_locations() {
    let s = import(&one_thread(
        "x=3;",
        " ld.weak r0, z ;",
        "forall (x == 3 /\\ w == 0)",
    ))
    .unwrap();
    assert_eq!(s.ctas[0].name, "cta0");
    let locs: Vec<(&str, i64)> = s
        .locations
        .iter()
        .map(|l| (l.name.as_str(), l.init))
        .collect();
    assert_eq!(locs, vec![("x", 3), ("z", 0), ("w", 0)]);
}

#[test]
fn proxies_aliases_and_proxy_fences() {
    let src = one_thread(
        "x = 5; y @ generic aliases x; s @ surface aliases y; t @ texture aliases x; c @ constant aliases x;",
        " sust.weak s, 1 ;\n fence.proxy.surface ;\n fence.proxy.alias ;\n fence.proxy.texture ;\n \
         tld.weak r0, t ;\n suld.weak r1, s ;\n cold.weak r2, c ;\n fence.proxy.constant ;",
        "forall (P0:r0 == 1)",
    );
    let s = import(&src).unwrap();
    let aliases: Vec<(&str, &str, Proxy, i64)> = s
        .locations
        .iter()
        .filter_map(|l| {
            l.alias
                .as_ref()
                .map(|a| (l.name.as_str(), a.target.as_str(), a.proxy, l.init))
        })
        .collect();
    assert_eq!(
        aliases,
        vec![
            ("y", "x", Proxy::Generic, 5),
            ("s", "y", Proxy::Surface, 5),
            ("t", "x", Proxy::Texture, 5),
            ("c", "x", Proxy::Constant, 5)
        ]
    );
    let p = &s.threads[0].program;
    assert!(matches!(&p[0], Instr::St { proxy: Proxy::Surface, addr, .. } if addr == "s"));
    assert_eq!(p[1], Instr::Fence(Fence::Proxy(ProxyKind::Surface)));
    assert_eq!(p[2], Instr::Fence(Fence::Proxy(ProxyKind::Alias)));
    assert_eq!(p[3], Instr::Fence(Fence::Proxy(ProxyKind::Texture)));
    assert!(matches!(&p[4], Instr::Ld { proxy: Proxy::Texture, addr, .. } if addr == "t"));
    assert!(matches!(
        &p[5],
        Instr::Ld {
            proxy: Proxy::Surface,
            ..
        }
    ));
    assert!(matches!(
        &p[6],
        Instr::Ld {
            proxy: Proxy::Constant,
            ..
        }
    ));
    assert_eq!(p[7], Instr::Fence(Fence::Proxy(ProxyKind::Constant)));
    let bad = one_thread(
        "s @ surface aliases nowhere;",
        " fence.proxy.alias ;",
        "forall (0 == 0)",
    );
    assert!(matches!(import(&bad), Err(LitmusError::Syntax { .. })));
}

#[test]
fn atomics_fences_and_local_arithmetic() {
    let src = one_thread(
        "m=1;",
        " atom.relaxed.gpu.cas r1, m, 0, 1 ;\n atom.acq_rel.sys.exch r2, m, r1 ;\n red.release.cta.add m, 2 ;\n \
         red.relaxed.gpu.sub m, 3 ;\n fence.sc.cta ;\n fence.acq_rel.gpu ;\n ld r3, 4 ;\n add r4, r3, 1 ;\n sub r5, r4, 2 ;",
        "forall (m == 0)",
    );
    let p = import(&src).unwrap().threads.remove(0).program;
    assert_eq!(
        p[0],
        Instr::Atom {
            op: AtomOp::Cas,
            sem: Some(Sem::Relaxed),
            scope: Some(Scope::Gpu),
            space: None,
            dst: Some("r1".into()),
            addr: "m".into(),
            args: vec![imm(0), imm(1)]
        }
    );
    assert!(
        matches!(&p[1], Instr::Atom { op: AtomOp::Exch, sem: Some(Sem::AcqRel), scope: Some(Scope::Sys), args, .. } if args == &vec![reg("r1")])
    );
    assert!(
        matches!(&p[2], Instr::Atom { op: AtomOp::Add, dst: None, args, .. } if args == &vec![imm(2)])
    );
    assert!(
        matches!(&p[3], Instr::Atom { op: AtomOp::Add, dst: None, args, .. } if args == &vec![imm(-3)])
    );
    assert_eq!(
        p[4],
        Instr::Fence(Fence::Thread {
            sem: Some(FenceSem::Sc),
            scope: Scope::Cta,
            restrict: None,
            sugar: None
        })
    );
    assert!(matches!(
        &p[5],
        Instr::Fence(Fence::Thread {
            sem: Some(FenceSem::AcqRel),
            scope: Scope::Gpu,
            ..
        })
    ));
    assert_eq!(
        p[6],
        Instr::Mov {
            dst: "r3".into(),
            src: imm(4)
        }
    );
    assert_eq!(
        p[7],
        Instr::Add {
            dst: "r4".into(),
            a: reg("r3"),
            b: imm(1)
        }
    );
    assert_eq!(
        p[8],
        Instr::Add {
            dst: "r5".into(),
            a: reg("r4"),
            b: imm(-2)
        }
    );
}

#[test]
fn labels_and_branches() {
    let src = one_thread(
        "f=0;",
        " LC00: ;\n ld.relaxed.gpu r0, f ;\n bne r0, 1, LC00 ;\n beq r0, r1, LC01 ;\n goto LC01 ;\n LC01: ;",
        "exists (P0:r0 == 1)",
    );
    let p = import(&src).unwrap().threads.remove(0).program;
    assert_eq!(p[0], Instr::Label("LC00".into()));
    assert_eq!(
        p[2],
        Instr::Branch {
            target: "LC00".into(),
            cond: Some((reg("r0"), CmpOp::Ne, imm(1)))
        }
    );
    assert_eq!(
        p[3],
        Instr::Branch {
            target: "LC01".into(),
            cond: Some((reg("r0"), CmpOp::Eq, reg("r1")))
        }
    );
    assert_eq!(
        p[4],
        Instr::Branch {
            target: "LC01".into(),
            cond: None
        }
    );
    let unknown = one_thread("", " goto LC09 ;", "exists (0 == 0)");
    assert!(import(&unknown).unwrap_err().to_string().contains("LC09"));
}

#[test]
fn conditions_quantifiers_and_precedence() {
    let s = import(&one_thread(
        "",
        " ld.weak r0, x ;",
        "~exists (P0:r0 = 1 \\/ ~x != 2 /\\ 0:r0 >= 0)",
    ))
    .unwrap();
    assert_eq!(s.conditions[0].quantifier, Quantifier::NotExists);
    assert_eq!(
        s.conditions[0].cond,
        Cond::Or(vec![
            Cond::Cmp(term("P0", "r0"), CmpOp::Eq, Term::Imm(1)),
            Cond::And(vec![
                Cond::Not(Box::new(Cond::Cmp(
                    Term::Mem("x".into()),
                    CmpOp::Ne,
                    Term::Imm(2)
                ))),
                Cond::Cmp(term("P0", "r0"), CmpOp::Ge, Term::Imm(0)),
            ]),
        ])
    );
    let forall = import(&one_thread("", "", "forall (P0:r0 == P0:r1)")).unwrap();
    assert_eq!(forall.conditions[0].quantifier, Quantifier::Forall);
    let ghost = one_thread("", "", "exists (P4:r0 == 1)");
    assert!(import(&ghost).unwrap_err().to_string().contains("P4"));
}
