//! Machine edits over every scenario in `tests/scenarios/`: adding items and removing
//! them again leaves a text that loads with no new error, and every removal either
//! refuses with a reason or leaves a text that parses.

use std::path::Path;

use fencelab::palette::{apply, Edit, EditError, Item, MachineEdit, Memory};

#[path = "support/fence_files.rs"]
mod fence_files;

use fence_files::fence_files;

fn errors(src: &str) -> Vec<String> {
    let mut out: Vec<String> =
        fencelab::load(src).diagnostics.iter().filter(|d| d.is_error()).map(|d| d.message.clone()).collect();
    out.sort();
    out
}

fn machine(src: &str, edit: MachineEdit) -> Result<String, EditError> {
    apply(src, &Edit::Machine(edit))
}

/// Names of what `edit` added: the declarations in `after` that `before` lacks.
fn added_items(before: &str, after: &str) -> Vec<Item> {
    let (b, a) = (fencelab::syntax::parse(before).scenario, fencelab::syntax::parse(after).scenario);
    let mut items = Vec::new();
    items.extend(a.threads.iter().filter(|t| b.thread(&t.name).is_none()).map(|t| Item::Thread(t.name.clone())));
    items.extend(a.mbarriers.iter().filter(|m| b.mbarrier(&m.name).is_none()).map(|m| Item::Mbarrier(m.name.clone())));
    items.extend(a.locations.iter().filter(|l| b.location(&l.name).is_none()).map(|l| Item::Location(l.name.clone())));
    items.extend(a.ctas.iter().filter(|c| b.cta(&c.name).is_none()).map(|c| Item::Cta(c.name.clone())));
    let old_cluster = |n: &str| b.clusters.iter().any(|c| c.name == n);
    items.extend(a.clusters.iter().filter(|c| !old_cluster(&c.name) && a.cta(&c.name).is_none()).map(|c| Item::Cluster(c.name.clone())));
    items
}

#[test]
fn adding_then_removing_machine_items_keeps_every_scenario_clean() {
    let mut files = Vec::new();
    fence_files(Path::new("tests/scenarios"), &mut files);
    files.sort();
    assert!(!files.is_empty(), "no scenario files found");
    for path in &files {
        let src = std::fs::read_to_string(path).unwrap_or_default();
        let name = path.display();
        let baseline = errors(&src);
        let parsed = fencelab::syntax::parse(&src).scenario;
        let Some(cta) = parsed.ctas.first().map(|c| c.name.clone()) else { continue };
        let Some(cluster) = parsed.clusters.first().map(|c| c.name.clone()) else { continue };
        let adds = [
            MachineEdit::AddCluster,
            MachineEdit::AddCta { cluster: None },
            MachineEdit::AddCta { cluster: Some(cluster) },
            MachineEdit::AddThread { cta: cta.clone() },
            MachineEdit::AddLocation { memory: Memory::Global },
            MachineEdit::AddLocation { memory: Memory::Shared(cta.clone()) },
            MachineEdit::AddMbarrier { cta, count: 1 },
        ];
        let mut text = src.clone();
        for edit in adds {
            text = machine(&text, edit.clone()).unwrap_or_else(|e| panic!("{name}: {edit:?}: {e}"));
            assert_eq!(errors(&text), baseline, "{name} after {edit:?}:\n{text}");
        }
        // Removed newest first, so a CTA is empty by the time its turn comes.
        let mut items = added_items(&src, &text);
        items.reverse();
        for item in items {
            text = machine(&text, MachineEdit::Remove(item.clone())).unwrap_or_else(|e| panic!("{name}: {item:?}: {e}"));
            assert_eq!(errors(&text), baseline, "{name} after removing {item:?}:\n{text}");
        }
        assert_eq!(fencelab::syntax::parse(&text).scenario, fencelab::syntax::parse(&fencelab::syntax::print(&parsed)).scenario, "{name}");
    }
}

#[test]
fn every_removal_refuses_with_a_reason_or_leaves_a_text_that_parses() {
    let mut files = Vec::new();
    fence_files(Path::new("tests/scenarios"), &mut files);
    for path in &files {
        let src = std::fs::read_to_string(path).unwrap_or_default();
        let s = fencelab::syntax::parse(&src).scenario;
        let items = s.threads.iter().map(|t| Item::Thread(t.name.clone()))
            .chain(s.locations.iter().map(|l| Item::Location(l.name.clone())))
            .chain(s.mbarriers.iter().map(|m| Item::Mbarrier(m.name.clone())))
            .chain(s.ctas.iter().map(|c| Item::Cta(c.name.clone())))
            .chain(s.clusters.iter().map(|c| Item::Cluster(c.name.clone())));
        for item in items {
            match machine(&src, MachineEdit::Remove(item.clone())) {
                Ok(text) => assert!(!fencelab::syntax::parse(&text).has_errors(), "{}: {item:?}:\n{text}", path.display()),
                // A declared item only refuses removal because something still uses it.
                Err(reason) => assert!(
                    matches!(reason, EditError::InUse { .. } | EditError::NotEmpty { .. }),
                    "{}: {item:?}: {reason}",
                    path.display()
                ),
            }
        }
    }
}
