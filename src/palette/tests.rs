use super::*;
use crate::model::{Instr, Scenario};
use crate::syntax::{instr_text, parse};

/// Two CTAs in a cluster, every kind of declaration the palette refers to.
const RICH: &str = "\
cluster C
cta A in C
cta B in C
global g = 0 size 16
shared x @A = 0 size 16
shared y @B = 0
tmem t @A = 0
mbarrier bar @A count 1
mbarrier peer @B count 1

thread p @A:
    st [x], 1

thread q @B:
    ld r0, [y]
";

fn rich() -> Scenario {
    let parsed = parse(RICH);
    assert!(!parsed.has_errors(), "{:?}", parsed.diagnostics);
    parsed.scenario
}

fn with_instr(instr: &Instr) -> Scenario {
    let mut s = rich();
    s.threads[0].program.push(instr.clone());
    s
}

fn errors(s: &Scenario) -> Vec<String> {
    let loaded = crate::load(&crate::syntax::print(s));
    let mut out: Vec<String> =
        loaded.diagnostics.iter().filter(|d| d.is_error()).map(|d| format!("{} {}", d.code, d.message)).collect();
    out.sort();
    out
}

fn slot_of(s: &Scenario, at: usize, kind: SlotKind) -> Slot {
    slots(s, 0, at).into_iter().find(|sl| sl.kind == kind).unwrap_or_else(|| panic!("no {kind:?} slot"))
}

fn labels(slot: &Slot) -> Vec<&str> {
    slot.choices.iter().map(|c| c.label.as_str()).collect()
}

#[test]
fn every_family_has_entries() {
    let catalog = catalog(&rich(), 0);
    assert_eq!(catalog.len(), Family::ALL.len());
    for (family, entries) in &catalog {
        assert!(!entries.is_empty(), "{family:?} is empty");
    }
}

#[test]
fn every_offered_choice_is_legal_and_one_is_selected() {
    for (family, entries) in catalog(&rich(), 0) {
        for entry in entries {
            let s = with_instr(&entry.instr);
            let at = s.threads[0].program.len() - 1;
            let baseline = errors(&s);
            for slot in slots(&s, 0, at) {
                let selected = slot.choices.iter().filter(|c| c.selected).count();
                assert_eq!(selected, 1, "{family:?} {} {:?}: {:?}", entry.label, slot.kind, labels(&slot));
                for choice in &slot.choices {
                    let mut candidate = s.clone();
                    candidate.threads[0].program[at] = choice.instr.clone();
                    let new: Vec<String> = errors(&candidate).into_iter().filter(|e| !baseline.contains(e)).collect();
                    assert!(new.is_empty(), "{} → {}: {new:?}", entry.label, instr_text(&choice.instr));
                }
            }
        }
    }
}

#[test]
fn palette_defaults_verify_in_a_full_scenario() {
    for (family, entries) in catalog(&rich(), 0) {
        for entry in entries {
            let s = with_instr(&entry.instr);
            let errs = errors(&s);
            // An mbarrier.init on a barrier declared with a count is a double init; the
            // rest must be clean as dropped.
            if !matches!(family, Family::Mbarrier | Family::Tcgen05 | Family::Wgmma) {
                assert!(errs.is_empty(), "{}: {errs:?}", entry.label);
            }
        }
    }
}

#[test]
fn loads_never_release_and_stores_never_acquire() {
    let s = rich();
    let st = slot_of(&s, 0, SlotKind::Semantics);
    assert!(labels(&st).contains(&"release"));
    assert!(!labels(&st).contains(&"acquire"), "{:?}", labels(&st));
    let mut q = s.clone();
    q.threads.swap(0, 1);
    let ld = slot_of(&q, 0, SlotKind::Semantics);
    assert!(labels(&ld).contains(&"acquire"));
    assert!(!labels(&ld).contains(&"release"), "{:?}", labels(&ld));
}

#[test]
fn defaults_are_marked_and_strong_picks_get_a_scope() {
    let s = rich();
    let st = slot_of(&s, 0, SlotKind::Semantics);
    let weak = st.choices.iter().find(|c| c.selected).map(|c| c.label.as_str());
    assert_eq!(weak, Some("weak (default)"));
    let release = st.choices.iter().find(|c| c.label == "release").map(|c| instr_text(&c.instr));
    assert_eq!(release.as_deref(), Some("st.release.gpu [x], 1"));
}

#[test]
fn mbarrier_waits_acquire_or_relax_and_arrives_release_or_relax() {
    let entries = catalog(&rich(), 0).into_iter().find(|(f, _)| *f == Family::Mbarrier).map(|e| e.1).unwrap_or_default();
    let pick = |label: &str| entries.iter().find(|e| e.label == label).map(|e| e.instr.clone()).unwrap();
    let s = with_instr(&pick("wait try_wait.parity"));
    assert_eq!(labels(&slot_of(&s, 1, SlotKind::Semantics)), ["acquire (default)", "acquire", "relaxed"]);
    assert_eq!(labels(&slot_of(&s, 1, SlotKind::Parity)), ["0", "1"]);
    let s = with_instr(&pick("mbarrier.arrive"));
    assert_eq!(labels(&slot_of(&s, 1, SlotKind::Semantics)), ["release (default)", "release", "relaxed"]);
}

#[test]
fn sync_restrict_brings_release_at_cluster() {
    let fence = Instr::Fence(crate::model::Fence::Thread {
        sem: None,
        scope: crate::model::Scope::Gpu,
        restrict: None,
        sugar: None,
    });
    let s = with_instr(&fence);
    let restrict = slot_of(&s, 1, SlotKind::Restrict);
    let texts: Vec<String> = restrict.choices.iter().map(|c| instr_text(&c.instr)).collect();
    assert!(texts.contains(&"fence.release.sync_restrict::shared::cta.cluster".to_string()), "{texts:?}");
}

#[test]
fn byte_range_and_guard_blocks_insert_as_text_and_keep_their_wrapper_through_choices() {
    let entries: Vec<Entry> = catalog(&rich(), 0).into_iter().flat_map(|(_, e)| e).collect();
    let pick = |label: &str| entries.iter().find(|e| e.label == label).map(|e| e.instr.clone()).unwrap();
    for (label, text) in [
        ("ld.b32 [x+OFFSET]", "ld.b32 r0, [x+0]"),
        ("st.b32 [x+OFFSET]", "st.b32 [x+0], 1"),
        ("@p ld (guarded)", "@p ld r0, [x]"),
        ("setp.eq", "setp.eq p, r0, 1"),
        ("cp.async.bulk g→s [x+OFFSET]", "[x+0], [g], 16, [bar]"),
    ] {
        let inserted = apply(RICH, &Edit::Insert { thread: 0, at: 1, instr: pick(label) }).unwrap();
        assert!(inserted.contains(text), "{label}: {inserted}");
        assert_eq!(parse(&inserted).scenario.threads[0].program[1], pick(label), "{label} does not read back");
    }
    for label in ["ld.b32 [x+OFFSET]", "@p ld (guarded)"] {
        let s = with_instr(&pick(label));
        let sem = slot_of(&s, 1, SlotKind::Semantics);
        let acquire = sem.choices.iter().find(|c| c.label == "acquire").map(|c| instr_text(&c.instr));
        let wanted = if label.starts_with('@') { "@p ld.acquire.gpu r0, [x]" } else { "ld.acquire.gpu.b32 r0, [x+0]" };
        assert_eq!(acquire.as_deref(), Some(wanted), "{label}");
    }
}

/// In a CTA pair's scenario, the pair blocks name the leader's and the peer's own
/// declarations and verify as dropped, from either CTA for the copy.
#[test]
fn pair_blocks_verify_in_a_pair_scenario() {
    let src = "cluster C\ncta L in C\ncta P in C\nglobal g = 0 size 16\nshared a0 @L = 0 size 16\nshared a1 @P = 0 size 16\n\
               tmem acc0 @L = 0\ntmem acc1 @P = 0\nmbarrier full @L count 1\nmbarrier done1 @P count 1\n\n\
               thread mma @L:\n    tcgen05.fence::after_thread_sync\n\nthread tma1 @P:\n    tcgen05.fence::after_thread_sync\n";
    let parsed = parse(src);
    assert!(!parsed.has_errors(), "{:?}", parsed.diagnostics);
    for (thread, label, text) in [
        (0, "tcgen05.mma pair", "tcgen05.mma.cta_group::2 [acc0], [a0], [a0], ([acc1], [a1], [a1])"),
        (0, "tcgen05.commit pair", "tcgen05.commit.cta_group::2.mbarrier::arrive::one.multicast::cluster [full], [done1]"),
        (1, "cp.async.bulk.tensor pair", "cp.async.bulk.tensor.shared::cluster.global.mbarrier::complete_tx::bytes.cta_group::2 [a1], [g], 16, [full]"),
    ] {
        let entry = catalog(&parsed.scenario, thread)
            .into_iter()
            .flat_map(|(_, entries)| entries)
            .find(|e| e.label == label)
            .unwrap_or_else(|| panic!("no {label} block"));
        assert_eq!(instr_text(&entry.instr), text);
        let mut s = parsed.scenario.clone();
        s.threads[thread].program.push(entry.instr.clone());
        assert_eq!(errors(&s), Vec::<String>::new(), "{label}");
    }
}

/// A new load's register is one the thread neither reads nor writes yet.
#[test]
fn a_new_load_takes_a_register_the_thread_does_not_use() {
    let load_text = |s: &Scenario, thread: usize| {
        let entries = catalog(s, thread).into_iter().flat_map(|(_, e)| e);
        entries.filter(|e| e.label == "ld.acquire").map(|e| instr_text(&e.instr)).next().expect("an ld.acquire block")
    };
    let s = rich();
    assert!(load_text(&s, 0).contains(" r0,"), "thread p uses no register: {}", load_text(&s, 0));
    assert!(load_text(&s, 1).contains(" r1,"), "thread q writes r0: {}", load_text(&s, 1));
    let reading = parse("cta A\nshared x @A = 0\n\nthread p @A:\n    st [x], r0\n    add r1, r0, 1\n").scenario;
    assert!(load_text(&reading, 0).contains(" r2,"), "r0 read, r1 written: {}", load_text(&reading, 0));
}
