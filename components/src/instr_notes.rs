//! What the lanes, the blocks and the editor note beside each synchronization instruction:
//! whether "Which steps matter?" found it necessary or redundant, and what it costs in SASS.
//! Both answers come from the core (`fix::improve`, `cost::cost`); this only places them.
//! Step marks belong to the text they were searched on and are never shown on another; so
//! do the lines a fix applied from the fix panel changed (`AppliedFix`).

use std::sync::Arc;

use fencelab::check::Mode;
use fencelab::cost::{cost, Cost, InstrCost, MODEL_LABEL};
use fencelab::fix::{Improvement, Necessary};
use fencelab::mutate::{MutationKind, DROPPED};
use leptos::prelude::*;

use crate::analysis::Analysis;

/// Where the cost-chip choice is remembered.
const COSTS_KEY: &str = "fencelab-cost-chips";

/// What "Which steps matter?" says of one instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StepKind {
    /// Some single weakening breaks the scenario.
    Necessary,
    /// Removing it leaves the scenario correct.
    Redundant,
    /// It cannot go, but a weaker form of it (a narrower scope, …) is still correct.
    Weaker,
}

impl StepKind {
    /// A glyph and a word, so the mark never rests on colour alone.
    pub fn label(self) -> (&'static str, &'static str) {
        match self {
            StepKind::Necessary => ("●", "needed"),
            StepKind::Redundant => ("○", "can go"),
            StepKind::Weaker => ("◐", "can weaken"),
        }
    }

    pub fn css(self) -> &'static str {
        match self {
            StepKind::Necessary => "necessary",
            StepKind::Redundant => "redundant",
            StepKind::Weaker => "weaker",
        }
    }
}

/// One instruction's mark and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StepMark {
    pub thread: String,
    pub instr: usize,
    pub kind: StepKind,
    pub why: String,
}

/// A "Which steps matter?" answer and the text and mode it was searched on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StepMarks {
    source: String,
    mode: Mode,
    marks: Vec<StepMark>,
}

/// Breakages named in a mark's title; the panel lists them all.
const BREAKS_SHOWN: usize = 3;

impl StepMarks {
    pub fn new(source: String, found: &Improvement) -> StepMarks {
        let mut marks: Vec<StepMark> = found
            .necessary
            .iter()
            .map(|n| {
                let mut why = format!("needed: {}", breaks_text(n));
                let weaker: Vec<String> = found
                    .redundant
                    .iter()
                    .filter(|r| r.thread == n.thread && r.instr == n.instr)
                    .map(|r| format!("{} (`{}`)", words(&r.kind), r.after))
                    .collect();
                if !weaker.is_empty() {
                    why.push_str(&format!("; still correct when weakened: {}", weaker.join(", ")));
                }
                StepMark { thread: n.thread.clone(), instr: n.instr, kind: StepKind::Necessary, why }
            })
            .collect();
        for r in &found.redundant {
            if marks.iter().any(|m| m.thread == r.thread && m.instr == r.instr) {
                continue;
            }
            let same = || found.redundant.iter().filter(|o| o.thread == r.thread && o.instr == r.instr);
            let (kind, why) = if same().any(|o| o.after == DROPPED) {
                (StepKind::Redundant, "can go: removing it is still correct".to_string())
            } else {
                let forms: Vec<String> = same().map(|o| format!("{} (`{}`)", words(&o.kind), o.after)).collect();
                (StepKind::Weaker, format!("can be weakened, still correct: {}", forms.join(", ")))
            };
            marks.push(StepMark { thread: r.thread.clone(), instr: r.instr, kind, why });
        }
        StepMarks { source, mode: found.mode, marks }
    }

    /// The marks, when they belong to `source`.
    pub fn on(&self, source: &str) -> Option<&StepMarks> {
        (self.source == source).then_some(self)
    }

    pub fn at(&self, thread: &str, instr: usize) -> Option<&StepMark> {
        self.marks.iter().find(|m| m.thread == thread && m.instr == instr)
    }

    /// A mark's hover text: why, and in which mode.
    pub fn title(&self, mark: &StepMark) -> String {
        format!("{} ({} mode)", mark.why, self.mode.name())
    }
}


/// A mutation's name (`narrow-scope`) as words.
pub fn words(kind: &str) -> String {
    kind.replace('-', " ")
}

/// The weakenings that break a needed step, and what the checker then says.
fn breaks_text(step: &Necessary) -> String {
    let breaks = &step.breaks;
    let mut parts: Vec<String> = breaks
        .iter()
        .take(BREAKS_SHOWN)
        .map(|b| {
            let weakened = if b.after == DROPPED { "removing it".to_string() } else { format!("{} (`{}`)", words(&b.kind), b.after) };
            match &b.finding {
                Some(finding) => format!("{weakened} → {}: {finding}", b.verdict.name()),
                None => format!("{weakened} → {}", b.verdict.name()),
            }
        })
        .collect();
    if breaks.len() > BREAKS_SHOWN {
        parts.push(format!("and {} more", breaks.len() - BREAKS_SHOWN));
    }
    parts.join("; ")
}

/// A cost chip's text and hover text: the SASS the instruction emits, under the model label.
pub fn chip_text(priced: &InstrCost) -> (String, String) {
    let inferred = if priced.measured { "" } else { " (inferred, not measured)" };
    (format!("cost {}", priced.cost), format!("{} = {}{inferred}\n{MODEL_LABEL}", priced.sass.join(" + "), priced.cost))
}

/// What the fix panel put in the editor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Applied {
    /// Fix or cheaper variant number N of the panel's list.
    Fix(usize),
    /// A weakening "Which steps matter?" tried on the step at this line, opened to see it.
    Variant { line: usize },
}

/// A text the fix panel put in the editor and the lines of it that the text before did
/// not have. Shown only on that text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AppliedFix {
    pub applied: Applied,
    source: String,
    pub lines: Vec<usize>,
}

impl AppliedFix {
    pub fn new(applied: Applied, before: &str, after: String) -> AppliedFix {
        AppliedFix { applied, lines: changed_lines(before, &after), source: after }
    }

    pub fn on(&self, source: &str) -> Option<&AppliedFix> {
        (self.source == source).then_some(self)
    }
}

/// The text of a variant "Which steps matter?" tried (a mutant of kind `kind`, named as
/// `MutationKind::name` does): `source` with instruction `instr` of `thread` moved below
/// the next one, removed (`after` is [`DROPPED`]) or written as `after` (a weaker form);
/// every other line as written. `None` when the result does not parse.
pub fn variant_text(source: &str, thread: &str, instr: usize, kind: &str, after: &str) -> Option<String> {
    use fencelab::palette::{apply, Edit};
    let parsed = fencelab::syntax::parse(source);
    if parsed.has_errors() {
        return None;
    }
    let t = parsed.scenario.threads.iter().position(|th| th.name == thread)?;
    let text = if kind == MutationKind::MoveDown.name() {
        apply(source, &Edit::Move { thread: t, at: instr, to_thread: t, to: instr + 2 }).ok()?
    } else if after == DROPPED {
        apply(source, &Edit::Remove { thread: t, at: instr }).ok()?
    } else {
        let span = parsed.source_map.instr(t, instr)?;
        format!("{}{after}{}", source.get(..span.start as usize)?, source.get(span.end as usize..)?)
    };
    (!fencelab::syntax::parse(&text).has_errors()).then_some(text)
}

/// Above this many line pairs the diff stops looking for moved lines: every line of the
/// differing middle counts as changed (a fix edits a few lines of a short program).
const MAX_DIFF_CELLS: usize = 1 << 20;

/// The 1-based lines of `after` outside a longest common subsequence of lines with
/// `before`: what an edit inserted or rewrote.
pub fn changed_lines(before: &str, after: &str) -> Vec<usize> {
    let old: Vec<&str> = before.split('\n').collect();
    let new: Vec<&str> = after.split('\n').collect();
    let prefix = old.iter().zip(&new).take_while(|(a, b)| a == b).count();
    let suffix = old[prefix..].iter().rev().zip(new[prefix..].iter().rev()).take_while(|(a, b)| a == b).count();
    let (old_mid, new_mid) = (&old[prefix..old.len() - suffix], &new[prefix..new.len() - suffix]);
    let to_line = |i: usize| prefix + i + 1;
    if old_mid.len().saturating_mul(new_mid.len()) > MAX_DIFF_CELLS {
        return (0..new_mid.len()).map(to_line).collect();
    }
    // lcs[i][j]: the longest common subsequence of old_mid[i..] and new_mid[j..].
    let width = new_mid.len() + 1;
    let mut lcs = vec![0u32; (old_mid.len() + 1) * width];
    for i in (0..old_mid.len()).rev() {
        for j in (0..new_mid.len()).rev() {
            lcs[i * width + j] = if old_mid[i] == new_mid[j] { lcs[(i + 1) * width + j + 1] + 1 } else { lcs[(i + 1) * width + j].max(lcs[i * width + j + 1]) };
        }
    }
    let (mut i, mut j, mut changed) = (0, 0, Vec::new());
    while j < new_mid.len() {
        if i < old_mid.len() && old_mid[i] == new_mid[j] {
            i += 1;
            j += 1;
        } else if i < old_mid.len() && lcs[(i + 1) * width + j] >= lcs[i * width + j + 1] {
            i += 1;
        } else {
            changed.push(to_line(j));
            j += 1;
        }
    }
    changed
}

/// The step marks and cost chips of one app state.
#[derive(Clone, Copy)]
pub struct InstrNotes {
    steps: RwSignal<Option<Arc<StepMarks>>>,
    /// The fix last applied from the fix panel, if any.
    applied: RwSignal<Option<Arc<AppliedFix>>>,
    /// Cost chips on or off.
    pub show_costs: RwSignal<bool>,
    /// Whether the choice is remembered (the explorer's, not a lesson card's).
    remembered: bool,
    costs: Memo<Option<Arc<Cost>>>,
    source: RwSignal<String>,
}

impl InstrNotes {
    /// `remember`: read and keep the cost-chip choice in the browser's storage.
    pub fn new(source: RwSignal<String>, analysis: Memo<Analysis>, remember: bool) -> InstrNotes {
        let show_costs = RwSignal::new(remember && crate::storage::get(COSTS_KEY).as_deref() == Some("on"));
        // Priced only while the chips show, and only a text that loads.
        let costs = Memo::new(move |_| {
            if !show_costs.get() {
                return None;
            }
            analysis.with(|a| (!a.has_errors()).then(|| Arc::new(cost(&a.loaded.scenario))))
        });
        InstrNotes { steps: RwSignal::new(None), applied: RwSignal::new(None), show_costs, remembered: remember, costs, source }
    }

    pub fn set_costs_shown(self, on: bool) {
        self.show_costs.set(on);
        if self.remembered {
            crate::storage::set(COSTS_KEY, if on { "on" } else { "off" });
        }
    }

    pub fn set_steps(self, marks: Option<StepMarks>) {
        self.steps.set(marks.map(Arc::new));
    }

    /// The step marks of the text in the editor now, if "Which steps matter?" ran on it.
    pub fn steps(self) -> Option<Arc<StepMarks>> {
        let marks = self.steps.get()?;
        self.source.with(|s| marks.on(s).is_some()).then_some(marks)
    }

    pub fn set_applied(self, fix: Option<AppliedFix>) {
        self.applied.set(fix.map(Arc::new));
    }

    /// The fix applied from the fix panel, while the text is the one it wrote.
    pub fn applied(self) -> Option<Arc<AppliedFix>> {
        let fix = self.applied.get()?;
        self.source.with(|s| fix.on(s).is_some()).then_some(fix)
    }

    /// The current text's prices, while the chips show.
    pub fn costs(self) -> Option<Arc<Cost>> {
        self.costs.get()
    }
}

/// The mark and the cost chip of instruction `instr` of thread `thread` (its index and
/// name), as badges with hover text; for the lanes and the blocks.
pub fn badges(notes: InstrNotes, thread: usize, name: &str, instr: usize) -> impl IntoView {
    let steps = notes.steps();
    let mark = steps.as_ref().and_then(|s| s.at(name, instr).map(|m| (s.title(m), m.kind)));
    let chip = notes.costs().and_then(|c| c.instr(thread, instr).map(chip_text));
    view! {
        {mark.map(|(title, kind)| {
            let (glyph, word) = kind.label();
            view! {
                <span class=format!("step-mark step-{}", kind.css()) data-step=kind.css() title=title>
                    <span aria-hidden="true">{glyph}</span>" "{word}
                </span>
            }
        })}
        {chip.map(|(text, title)| view! { <span class="cost-chip" data-cost-chip="" title=title>{text}</span> })}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fencelab::fix::{improve, Limits};

    const MP: &str = include_str!("../templates/mp-release-acquire.fence");

    fn marks_of(src: &str) -> StepMarks {
        let found = improve(src, Mode::Strict, &Limits::default(), &mut |_, _| true).expect("improves");
        StepMarks::new(src.to_string(), &found)
    }

    #[test]
    fn the_release_and_the_acquire_of_message_passing_are_needed() {
        let marks = marks_of(MP);
        let loaded = fencelab::load(MP);
        for thread in &loaded.scenario.threads {
            for (i, instr) in thread.program.iter().enumerate() {
                let text = fencelab::syntax::instr_text(instr);
                let mark = marks.at(&thread.name, i);
                if text.contains(".release") || text.contains(".acquire") {
                    let mark = mark.unwrap_or_else(|| panic!("{text} is marked"));
                    assert_eq!(mark.kind, StepKind::Necessary, "{text}");
                    assert!(mark.why.starts_with("needed: ") && mark.why.contains(" → "), "{}", mark.why);
                }
            }
        }
    }

    #[test]
    fn a_step_that_can_go_says_so() {
        // An extra CTA fence in the producer, after its release: removing it changes nothing.
        let src = MP.replacen("    st.release.cta.shared [flag], 1", "    st.release.cta.shared [flag], 1\n    fence.acq_rel.cta", 1);
        assert_ne!(src, MP, "the template has the release store");
        let marks = marks_of(&src);
        let fence = marks.at("producer", 2).expect("the fence is marked");
        assert_eq!((fence.kind, fence.why.as_str()), (StepKind::Redundant, "can go: removing it is still correct"));
    }

    #[test]
    fn a_fix_changes_the_lines_it_inserted_or_rewrote_only() {
        let before = "cta A\n\nthread p @A:\n    st.shared [x], 1\n    st.shared [f], 1\n# note\n";
        // A fence inserted between the stores, the flag store made a release.
        let after = "cta A\n\nthread p @A:\n    st.shared [x], 1\n    fence.acq_rel.cta\n    st.release.cta.shared [f], 1\n# note\n";
        assert_eq!(changed_lines(before, after), vec![5, 6]);
        assert_eq!(changed_lines(before, before), Vec::<usize>::new());
        // A line removed changes no line of the new text; one appended at the end does.
        assert_eq!(changed_lines("a\nb\nc", "a\nc"), Vec::<usize>::new());
        assert_eq!(changed_lines(after, before), vec![5], "undoing rewrites the flag store back");
        assert_eq!(changed_lines("a\nb", "a\nb\nexpect correct"), vec![3]);
        let applied = AppliedFix::new(Applied::Fix(2), before, after.to_string());
        assert!(applied.on(after).is_some() && applied.on(before).is_none(), "shown on the text it wrote only");
    }

    #[test]
    fn each_variant_the_search_tried_opens_as_a_text() {
        let src = MP.replacen("    st.release.cta.shared [flag], 1", "    st.release.cta.shared [flag], 1\n    fence.acq_rel.cta", 1);
        let found = improve(&src, Mode::Strict, &Limits::default(), &mut |_, _| true).expect("improves");
        let variants = found
            .necessary
            .iter()
            .flat_map(|n| n.breaks.iter().map(move |b| (n.line, &n.thread, n.instr, &b.kind, &b.after)))
            .chain(found.redundant.iter().map(|r| (r.line, &r.thread, r.instr, &r.kind, &r.after)));
        let mut opened = 0;
        for (line, thread, instr, kind, after) in variants {
            let text = variant_text(&src, thread, instr, kind, after).unwrap_or_else(|| panic!("{thread}:{instr} {kind} {after}"));
            let (old, new): (Vec<&str>, Vec<&str>) = (src.lines().collect(), text.lines().collect());
            if kind == MutationKind::MoveDown.name() {
                assert_eq!((new[line - 1], new[line]), (old[line], old[line - 1]), "{after}: the two lines swap");
                let mut rest = new.clone();
                rest.swap(line - 1, line);
                assert_eq!(rest, old, "{after}: nothing else moves");
            } else if after == DROPPED {
                assert_eq!(new.len() + 1, old.len(), "{after}: one line goes");
                assert!(!new.contains(&old[line - 1]) || old.iter().filter(|l| **l == old[line - 1]).count() > 1);
            } else {
                assert_eq!(new.len(), old.len());
                let differ: Vec<usize> = (0..old.len()).filter(|&i| old[i] != new[i]).collect();
                assert_eq!(differ, vec![line - 1], "{after}: only line {line} changes");
                assert!(new[line - 1].contains(after.as_str()), "{}", new[line - 1]);
            }
            opened += 1;
        }
        assert!(opened >= 3, "the release, the acquire and the extra fence each have a variant");
    }

    #[test]
    fn marks_belong_to_their_text() {
        let marks = marks_of(MP);
        assert!(marks.on(MP).is_some());
        assert!(marks.on(&format!("{MP}\n# a comment")).is_none(), "any edit makes them stale");
    }
}
