//! A proptest strategy for structurally valid scenarios and share payloads, covering
//! every instruction kind and arbitrary (including hostile) names.

use fencelab::check::Mode;
use fencelab::link::{LessonRef, Panels, SharePayload, Theme, TraceRef, UiOptions, ViewState};
use fencelab::model::*;
use fencelab::schedule::{Schedule, Step};
use proptest::collection::vec;
use proptest::option;
use proptest::prelude::*;

use crate::arb_instr::{cmp_op, instr, proxy};

/// Any text, biased towards markup and quoting characters.
pub fn name() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z_][a-z0-9_]{0,6}",
        "[<>&\"'/ ;a-z()]{0,10}",
        ".{0,8}",
        Just("<script>alert(1)</script>".to_string()),
    ]
}

fn term() -> impl Strategy<Value = Term> {
    prop_oneof![
        any::<i64>().prop_map(Term::Imm),
        (name(), name()).prop_map(|(thread, reg)| Term::Reg { thread, reg }),
        name().prop_map(Term::Mem),
    ]
}

fn cond() -> impl Strategy<Value = Cond> {
    let leaf = prop_oneof![
        Just(Cond::True),
        (term(), cmp_op(), term()).prop_map(|(a, op, b)| Cond::Cmp(a, op, b))
    ];
    leaf.prop_recursive(3, 12, 3, |inner| {
        prop_oneof![
            inner.clone().prop_map(|c| Cond::Not(Box::new(c))),
            vec(inner.clone(), 0..3).prop_map(Cond::And),
            vec(inner, 0..3).prop_map(Cond::Or),
        ]
    })
}

fn final_condition() -> impl Strategy<Value = FinalCondition> {
    let quantifier = prop_oneof![
        Just(Quantifier::Exists),
        Just(Quantifier::NotExists),
        Just(Quantifier::Forall)
    ];
    (quantifier, cond()).prop_map(|(quantifier, cond)| FinalCondition { quantifier, cond })
}

fn expect() -> impl Strategy<Value = Expect> {
    prop_oneof![
        Just(Expect::Correct),
        Just(Expect::Race),
        Just(Expect::Deadlock),
        Just(Expect::Undefined)
    ]
}

/// No expectation, one for every mode, or one per mode (what the parser accepts).
fn expectations() -> impl Strategy<Value = Vec<Expectation>> {
    prop_oneof![
        Just(Vec::new()),
        expect().prop_map(|verdict| vec![Expectation::every_mode(verdict)]),
        (expect(), expect()).prop_map(|(strict, pragmatic)| vec![
            Expectation { mode: Some(Mode::Strict), verdict: strict },
            Expectation { mode: Some(Mode::Pragmatic), verdict: pragmatic },
        ]),
    ]
}

/// A scenario whose cluster and CTA indices are all in range.
pub fn scenario() -> impl Strategy<Value = Scenario> {
    (1usize..3, 1usize..4).prop_flat_map(|(clusters, ctas)| {
        let cluster = (name(), 0u32..2).prop_map(|(name, gpu)| Cluster { name, gpu });
        let cta = (name(), 0..clusters).prop_map(|(name, cluster)| Cta { name, cluster });
        let space = prop_oneof![
            Just(Space::Global),
            (0..ctas).prop_map(Space::Shared),
            (0..ctas).prop_map(Space::Tmem)
        ];
        let alias = (name(), proxy()).prop_map(|(target, proxy)| Alias { target, proxy });
        let location = (name(), space, any::<u32>(), any::<i64>(), option::of(alias)).prop_map(
            |(name, space, size, init, alias)| Location { name, space, size, init, alias },
        );
        let mbarrier = (name(), 0..ctas, option::of(any::<u32>()))
            .prop_map(|(name, cta, count)| Mbarrier { name, cta, count });
        let thread = (name(), 0..ctas, any::<u32>(), vec(instr(), 0..6))
            .prop_map(|(name, cta, lanes, program)| Thread { name, cta, lanes, program });
        (
            (option::of(name()), vec(cluster, clusters), vec(cta, ctas)),
            (vec(location, 0..4), vec(mbarrier, 0..3), vec(thread, 0..4)),
            (expectations(), vec(final_condition(), 0..3)),
        )
            .prop_map(
                |(
                    (title, clusters, ctas),
                    (locations, mbarriers, threads),
                    (expect, conditions),
                )| {
                    Scenario {
                        title,
                        clusters,
                        ctas,
                        locations,
                        mbarriers,
                        threads,
                        expect,
                        conditions,
                    }
                },
            )
    })
}

fn view() -> impl Strategy<Value = ViewState> {
    let mode = prop_oneof![Just(Mode::Strict), Just(Mode::Pragmatic)];
    let step = (any::<u32>(), any::<u32>()).prop_map(|(agent, choice)| Step { agent, choice });
    let trace = prop_oneof![
        any::<u32>().prop_map(TraceRef::Finding),
        vec(step, 0..20).prop_map(|steps| TraceRef::Schedule(Schedule { steps })),
    ];
    let lesson = (name(), any::<u32>()).prop_map(|(id, block)| LessonRef { id, block });
    let theme = prop_oneof![Just(Theme::System), Just(Theme::Light), Just(Theme::Dark)];
    let panels = any::<u32>().prop_map(Panels::from_bits);
    (mode, option::of(trace), option::of(any::<u32>()), option::of(lesson), panels, theme).prop_map(
        |(mode, trace, step, lesson, panels, theme)| ViewState {
            mode,
            trace,
            step,
            lesson,
            ui: UiOptions { panels, theme },
        },
    )
}

pub fn payload() -> impl Strategy<Value = SharePayload> {
    (scenario(), view()).prop_map(|(scenario, view)| SharePayload { scenario, view })
}
