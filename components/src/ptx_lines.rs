//! The PTX line beside the lanes: for a scenario imported from a kernel (`# ptx LINE` on
//! each instruction), which kernel line the current step runs and which lines the shown
//! finding's accesses sit on, so stepping (or a witness) reads against the PTX. Nothing
//! shows for a scenario without such comments.

use leptos::prelude::*;

use crate::analysis::Analysis;
use crate::source_link::{marks, SourceLines};
use crate::state::use_app_state;

/// The PTX line a `# ptx LINE` comment on editor line `line` (1-based) of `source` names.
pub fn ptx_line(source: &str, line: usize) -> Option<usize> {
    let text = source.lines().nth(line.checked_sub(1)?)?;
    let at = text.rfind("# ptx ")?;
    let digits: String = text[at + "# ptx ".len()..].chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// What the lanes show: the PTX line of the current step and of the next, and the PTX
/// lines of the shown finding's accesses.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct PtxMarks {
    current: Option<usize>,
    next: Option<usize>,
    finding: Vec<usize>,
}

#[component]
pub fn StepPtxLine() -> impl IntoView {
    let state = use_app_state();
    let shown = Memo::new(move |_| {
        let finding = state.marks.with(|m| m.shown().cloned());
        state.analysis.with(|a: &Analysis| {
            if a.has_errors() || !a.source.contains("# ptx ") {
                return None;
            }
            let lines = SourceLines::new(&a.loaded, &a.source);
            let editor_marks = state.tape.with(|t| match t {
                Some(Ok(tape)) => marks(&lines, tape, finding.as_ref()),
                _ => None,
            })?;
            let mut finding: Vec<usize> = editor_marks.accesses.iter().filter_map(|(l, _)| ptx_line(&a.source, *l)).collect();
            finding.sort_unstable();
            finding.dedup();
            Some(PtxMarks {
                current: editor_marks.current.and_then(|l| ptx_line(&a.source, l)),
                next: editor_marks.next.and_then(|l| ptx_line(&a.source, l)),
                finding,
            })
        })
    });
    move || {
        shown.get().map(|m| {
            let step = m.current.map_or_else(String::new, |l| l.to_string());
            let finding = m.finding.iter().map(usize::to_string).collect::<Vec<_>>();
            view! {
                <p class="ptx-line" data-ptx-step=step.clone() data-ptx-finding=finding.join(" ")>
                    {m.current.map(|l| view! { <span class="ptx-line-step">"This step: PTX line " <strong>{l.to_string()}</strong></span> })}
                    {m.next.filter(|n| Some(*n) != m.current).map(|l| view! { <span class="ptx-line-next">{format!(" · next: PTX line {l}")}</span> })}
                    {(!finding.is_empty()).then(|| view! {
                        <span class="ptx-line-finding">{format!(" · the finding's accesses: PTX line{} {}", if finding.len() > 1 { "s" } else { "" }, finding.join(", "))}</span>
                    })}
                </p>
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_ptx_comment_on_a_line_names_its_kernel_line() {
        let source = "thread t @cta0:\n    barrier.cluster.arrive  # = .release (default) # ptx 84\n    fence.sc.cta\n";
        assert_eq!(ptx_line(source, 2), Some(84));
        assert_eq!(ptx_line(source, 3), None, "no comment");
        assert_eq!(ptx_line(source, 0), None);
        assert_eq!(ptx_line(source, 9), None);
    }

    #[test]
    fn an_imported_kernel_names_a_ptx_line_on_every_instruction_line() {
        let imported = fencelab::import::import(include_str!("../../tests/import/relay_pipeline.ptx"), &Default::default()).expect("imports");
        let loaded = fencelab::load(&imported.text);
        let lines = SourceLines::new(&loaded, &imported.text);
        for (t, thread) in imported.scenario.threads.iter().enumerate() {
            for i in 0..thread.program.len() {
                let line = lines.line_of(&thread.name, i).expect("placed");
                assert_eq!(ptx_line(&imported.text, line), imported.lines[t].1.get(i).copied(), "{} #{i}", thread.name);
            }
        }
    }
}
