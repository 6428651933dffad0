//! The checker: explores every interleaving of a scenario and reports verdicts.
//!
//! Entry point: [`check`] ([`check_with_progress`] also reports how far it has got). The report types in [`report`] are the API the CLI, the
//! lessons, the conformance runner and the app consume; [`Stepper`] and [`view`] serve
//! the stepping UI.
//!
//! The model is operational: agents step one at a time, reads choose among the writes
//! coherence still allows (§1.9), and happens-before is vector clocks joined along
//! synchronizes-with edges (the table in `semantics/sync.rs`). Departures from the
//! reference, each commented where it is implemented:
//! - coherence order is the order writes execute, and reads never see later writes, so
//!   load-buffering and "a later write is coherence-earlier" outcomes (CoRW-WW, LB
//!   without dependencies) are not produced;
//! - a strong `ld`/`st` written without a scope gets `.gpu`; `try_wait` never fails
//!   spuriously; a failed `atom.cas` is a read only;
//! - proxy fences compose in order and are CTA-local: the fence leaving a non-generic
//!   proxy runs in the writer's CTA, the one entering it in the reader's (the mixed-proxy
//!   litmus rule; async crossings between CTAs accept either CTA);
//! - `fence.proxy.async::generic` halves cross the proxy both ways over their space (each
//!   half is also its pattern's release or acquire fence, reference §2.3);
//! - one thread's accesses through two virtual addresses or proxies with no proxy fence
//!   between are reported as a race (the reference calls same-thread pairs morally strong,
//!   but §1.8 (iii) leaves them unordered, so the later access may see a stale value);
//! - a relaxed `barrier.cluster.arrive` carries earlier release fences at their own
//!   scope (pragmatic) or only cluster-or-wider ones (strict, reference §5.2);
//! - a successful mbarrier wait acquires the releases of every completed phase; a wrong
//!   phase is recognised only when a parity wait passes on a fresh barrier;
//! - weak writes are assumed to become visible eventually (a spin on a weak flag is
//!   not reported as a hang);
//! - a CTA exits when its last thread finishes; declared TMEM of a CTA that never
//!   allocates counts as allocated; tcgen05 shapes are not modelled (`docs/async-agents.md`).

mod ambiguity;
mod explore;
mod machine;
pub mod report;
mod semantics;
mod snapshot;
mod stated;
mod step;
mod text;
pub mod view;

pub use explore::{check, check_one_mode, check_with_progress, condition_text};
pub use report::{
    Access, Blocked, ConditionResult, ExpectationResult, Finding, FindingKind, Mode, Options, Outcome,
    Progress, RaceReason, Report, Stats, Verdict,
};
pub use stated::stated_modes;
pub use step::{StepError, Stepper};
