//! The words in the timeline: column names, dot labels and captions.

use fencelab::check::view::EventView;

/// Longest column name drawn in full; longer ones are shortened with an ellipsis.
pub(super) const NAME_CHARS: usize = 16;
/// Longest label drawn beside a dot, so it ends before the next column.
const LABEL_CHARS: usize = 18;
/// Instruction modifiers left out of a dot's label: semantics, scopes, state spaces.
const LABEL_DROPS: &[&str] = &[
    "relaxed", "acquire", "release", "acq_rel", "sc", "weak", "volatile", "mmio", "cta", "cluster", "gpu", "sys",
    "parity", "expect_tx", "global", "shared", "const", "param", "local", "sync", "aligned",
];

pub(super) fn shorten(name: &str) -> String {
    if name.chars().count() <= NAME_CHARS {
        return name.to_string();
    }
    let kept: String = name.chars().take(NAME_CHARS - 1).collect();
    format!("{kept}…")
}

pub(super) fn dot_caption(step: usize, e: &EventView) -> String {
    if e.instr_text.is_empty() {
        return format!("step {step}: {}: {}", e.agent_name, e.description);
    }
    format!("step {step}: {} {} ({})", e.agent_name, e.instr_text, e.description)
}

/// The instruction's operation; an async agent's step has no instruction of its own, so
/// it is the first word of what the step did (`copied`, `complete_tx`).
pub(super) fn dot_label(e: &EventView) -> String {
    if !e.instr_text.is_empty() {
        return short_label(&e.instr_text);
    }
    let what = e.description.strip_prefix(&format!("{}: ", e.agent_name)).unwrap_or(&e.description);
    short_label(what)
}

/// `wait mbarrier.try_wait.parity.acquire.cta.shared::cta [bar], 0` → `mbarrier.try_wait`.
pub(super) fn short_label(instr: &str) -> String {
    let opcode = instr.trim_start_matches("wait ").split_whitespace().next().unwrap_or_default();
    let kept: Vec<&str> = opcode
        .split('.')
        .enumerate()
        .take_while(|(i, part)| *i == 0 || !(LABEL_DROPS.contains(part) || part.contains("::")))
        .map(|(_, part)| part)
        .collect();
    let label = kept.join(".");
    if label.chars().count() <= LABEL_CHARS {
        return label;
    }
    let cut: String = label.chars().take(LABEL_CHARS - 1).collect();
    format!("{cut}…")
}

pub(super) fn step_words(step: Option<usize>) -> String {
    step.map_or("start".to_string(), |s| format!("step {}", s + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_names_are_shortened() {
        assert_eq!(shorten("producer"), "producer");
        let short = shorten("cp.async.bulk#12 (producer)");
        assert_eq!(short.chars().count(), NAME_CHARS);
        assert!(short.ends_with('…'));
    }

    #[test]
    fn dot_labels_keep_the_operation_and_drop_the_modifiers() {
        assert_eq!(short_label("wait mbarrier.try_wait.parity.acquire.cta.shared::cta [bar], 0"), "mbarrier.try_wait");
        assert_eq!(short_label("st.shared::cta [x], 42"), "st");
        assert_eq!(short_label("mbarrier.arrive.expect_tx.release.cta.shared::cta _, [full], 64"), "mbarrier.arrive");
        assert_eq!(short_label("cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [buf], [src], 64, [full]"), "cp.async.bulk");
        assert_eq!(short_label("fence.proxy.async.shared::cta"), "fence.proxy.async");
        assert_eq!(short_label("cp.reduce.async.bulk.add [x], [y]"), "cp.reduce.async.b…");
        assert_eq!(short_label("wgmma.commit_group.sync.aligned"), "wgmma.commit_group");
        assert_eq!(short_label(""), "");
    }
}
