//! Small scenarios built in Rust, so the link tests do not depend on the parser.

use fencelab::link::SharePayload;
use fencelab::model::*;

/// `docs/syntax.md`'s example: an intra-CTA handoff through an mbarrier.
pub fn mbarrier_handoff() -> Scenario {
    let mbar = |kind, sem, scope| {
        Instr::Mbar(MbarOp {
            kind,
            sem: Some(sem),
            scope: Some(scope),
            space: Some(AddrSpace::SharedCta),
            bar: "bar".into(),
        })
    };
    let arrive = MbarKind::Arrive {
        count: None,
        expect_tx: None,
        no_complete: false,
        drop: false,
        state: None,
    };
    let wait = MbarKind::Wait { blocking: true, parity: true, phase: Operand::Imm(0), dst: None };
    let producer = vec![
        Instr::St {
            sem: None,
            scope: None,
            space: Some(AddrSpace::SharedCta),
            proxy: Proxy::Generic,
            addr: "x".into(),
            src: Operand::Imm(42),
        },
        mbar(arrive, Sem::Release, Scope::Cta),
    ];
    let consumer = vec![
        Instr::Wait { instr: Box::new(mbar(wait, Sem::Acquire, Scope::Cta)), until: None },
        Instr::Ld {
            sem: None,
            scope: None,
            space: Some(AddrSpace::SharedCta),
            proxy: Proxy::Generic,
            dst: "r0".into(),
            addr: "x".into(),
        },
    ];
    let thread = |name: &str, program| Thread { name: name.into(), cta: 0, lanes: 32, program };
    Scenario {
        title: Some("Intra-CTA handoff through an mbarrier".into()),
        clusters: vec![Cluster { name: "A".into(), gpu: 0 }],
        ctas: vec![Cta { name: "A".into(), cluster: 0 }],
        locations: vec![Location {
            name: "x".into(),
            space: Space::Shared(0),
            size: 4,
            init: 0,
            alias: None,
        }],
        mbarriers: vec![Mbarrier { name: "bar".into(), cta: 0, count: Some(1) }],
        threads: vec![thread("producer", producer), thread("consumer", consumer)],
        expect: vec![Expectation::every_mode(Expect::Correct)],
        conditions: vec![FinalCondition {
            quantifier: Quantifier::Forall,
            cond: Cond::Cmp(
                Term::Reg { thread: "consumer".into(), reg: "r0".into() },
                CmpOp::Eq,
                Term::Imm(42),
            ),
        }],
    }
}

pub fn handoff_payload() -> SharePayload {
    SharePayload::scenario_only(mbarrier_handoff())
}
