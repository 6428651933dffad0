//! Every instruction form fencelab offers or prints is a row of `syntax::forms::FORMS`
//! (issue 50): the palette's blocks and the modifier choices it offers, and every
//! scenario, template and lesson in the repository. Forms PTX lacks are errors that name a
//! real form; Dat3M's model-only proxies are warnings.

use std::collections::HashMap;
use std::path::Path;

use fencelab::diag::Severity;
use fencelab::model::{Instr, Scenario};
use fencelab::syntax::forms::{expand, form_of, opcode_words, Origin, FORMS};

#[path = "support/fence_files.rs"]
mod fence_files;

/// The words of `instr` that the table lacks, or has only as undefined behaviour.
fn unlisted(instr: &Instr) -> Vec<String> {
    opcode_words(instr).into_iter().filter(|w| form_of(w).is_none_or(|f| f.origin == Origin::Undefined)).collect()
}

/// A machine with every kind of object a palette block can name.
const MACHINE: &str = "cluster C\ncta A in C\ncta B in C\nglobal g = 0 size 64\nshared s @A = 0 size 64\nshared p @B = 0 size 64\ntmem t @A = 0\nmbarrier bar @A count 1\nmbarrier peer @B count 1\nalias sf = g via surface\nthread w @A:\n    mov r0, 1\n";

#[test]
fn every_palette_block_and_offered_choice_is_a_table_form() {
    let base = fencelab::load(MACHINE).scenario;
    let mut checked = 0;
    for (family, entries) in fencelab::palette::catalog(&base, 0) {
        for entry in entries {
            assert!(unlisted(&entry.instr).is_empty(), "{family:?} block `{}` prints a form not in the table", fencelab::syntax::instr_text(&entry.instr));
            let mut s: Scenario = base.clone();
            s.threads[0].program.push(entry.instr.clone());
            let at = s.threads[0].program.len() - 1;
            for slot in fencelab::palette::slots(&s, 0, at) {
                for choice in slot.choices {
                    checked += 1;
                    assert!(
                        unlisted(&choice.instr).is_empty(),
                        "{family:?} block `{}` offers `{}` ({}), a form not in the table",
                        entry.label,
                        fencelab::syntax::instr_text(&choice.instr),
                        choice.label
                    );
                }
            }
        }
    }
    assert!(checked > 100, "only {checked} choices offered");
}

/// Every scenario source in the repository: `.fence` files and lesson blocks.
fn repo_sources() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    fence_files::fence_files(&root.join("tests"), &mut files);
    let mut out: Vec<(String, String)> =
        files.iter().map(|p| (p.display().to_string(), std::fs::read_to_string(p).unwrap_or_default())).collect();
    for entry in std::fs::read_dir(root.join("lessons")).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.extension().is_some_and(|e| e == "md") {
            let (lesson, _) = fencelab::lesson::parse_lesson(&std::fs::read_to_string(&path).unwrap_or_default());
            for block in lesson.blocks {
                if let fencelab::lesson::Block::Scenario { source, line, .. } = block {
                    out.push((format!("{}:{line}", path.display()), source));
                }
            }
        }
    }
    out
}

#[test]
fn every_scenario_in_the_repository_writes_table_forms() {
    let sources = repo_sources();
    assert!(sources.len() > 300, "found only {} scenarios", sources.len());
    let mut bad = Vec::new();
    for (name, src) in &sources {
        // Parser tests feed broken text on purpose; what parses must still be a table form.
        let parsed = fencelab::syntax::parse(src);
        for thread in &parsed.scenario.threads {
            for instr in &thread.program {
                let words = unlisted(instr);
                // A wait on a peer's barrier is kept only to show the undefined behaviour.
                let remote_wait = words.iter().all(|w| form_of(w).is_some_and(|f| f.origin == Origin::Undefined));
                if words.is_empty() || (remote_wait && src.contains("expect undefined")) {
                    continue;
                }
                bad.push(format!("{name}: `{}`", fencelab::syntax::instr_text(instr)));
            }
        }
    }
    assert!(bad.is_empty(), "forms not in the table:\n{}", bad.join("\n"));
}

#[test]
fn no_word_belongs_to_two_rows() {
    let mut seen: HashMap<String, &str> = HashMap::new();
    for form in FORMS {
        for word in expand(form.pattern) {
            if let Some(other) = seen.insert(word.clone(), form.pattern) {
                assert_eq!(other, form.pattern, "`{word}` is in two rows");
            }
        }
        assert!(form.isa.contains('§') || form.origin != Origin::Ptx, "`{}` names no ISA section", form.pattern);
    }
    assert!(seen.len() > 1000, "{} words", seen.len());
}

fn diagnostics(line: &str) -> Vec<(String, Severity, String)> {
    let src = format!("{MACHINE}    {line}\n");
    fencelab::load(&src)
        .diagnostics
        .into_iter()
        .map(|d| {
            let text = format!("{} {}", d.help.clone().unwrap_or_default(), d.notes.join(" "));
            (d.code, d.severity, text)
        })
        .collect()
}

#[test]
fn forms_ptx_lacks_are_errors_that_name_the_real_form() {
    let cases = [
        ("fence.proxy.async::generic.release.sync_restrict::shared::cluster.cluster", "F0347", "fence.proxy.async::generic.release.sync_restrict::shared::cta.cluster"),
        ("fence.proxy.async::generic.acquire.sync_restrict::shared::cta.cluster", "F0347", "fence.proxy.async::generic.acquire.sync_restrict::shared::cluster.cluster"),
        ("ld.mmio.sys.global r0, [g]", "F0207", "ld.mmio.relaxed.sys.global"),
        ("red.async.shared::cluster.mbarrier::complete_tx::bytes.add [p], 1, [peer]", "F0207", "red.async.relaxed.cluster"),
        ("red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.exch [p], 1, [peer]", "F0347", ".add"),
        ("mbarrier.try_wait.parity.shared::cluster p0, [bar], 0", "F0347", "mbarrier.try_wait.parity.shared::cta"),
        ("mbarrier.inval.shared::cluster [bar]", "F0347", "mbarrier.inval.shared::cta"),
        ("mbarrier.arrive.noComplete.relaxed.cta _, [bar], 1", "F0347", "mbarrier.arrive.noComplete.release.cta"),
        ("cp.async.mbarrier.arrive.shared::cluster [bar]", "F0347", "cp.async.mbarrier.arrive.shared::cta"),
        ("cp.async.bulk.global.shared::cta.mbarrier::complete_tx::bytes [g], [s], 16, [bar]", "F0347", "cp.async.bulk.global.shared::cta.bulk_group"),
        ("cp.async.bulk.shared::cta.global.bulk_group [s], [g], 16", "F0347", "cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes"),
        ("mbarrier.arrive.release [bar]", "F0347", "mbarrier.arrive.release.cta"),
        ("suld.global r0, [sf]", "F0203", ""),
    ];
    for (line, code, hint) in cases {
        let diags = diagnostics(line);
        assert!(
            diags.iter().any(|(c, sev, text)| c == code && *sev == Severity::Error && text.contains(hint)),
            "`{line}` should be error {code} naming `{hint}`: {diags:?}"
        );
    }
}

#[test]
fn the_real_ptx_spellings_are_accepted() {
    for line in [
        "ld.mmio.relaxed.sys.global r0, [g]",
        "st.mmio.relaxed.sys [g], 1",
        "fence.proxy.tensormap::generic.acquire.gpu [g], 128",
        "fence.proxy.tensormap::generic.release.gpu",
        "suld.b.2d r0, [sf]",
    ] {
        let diags = diagnostics(line);
        assert!(diags.iter().all(|(_, sev, _)| *sev != Severity::Error), "`{line}`: {diags:?}");
    }
}

#[test]
fn model_only_forms_warn_and_name_the_isa() {
    for line in ["fence.proxy.texture", "fence.proxy.surface", "fence.proxy.constant", "tld r0, [g]"] {
        let diags = diagnostics(line);
        assert!(
            diags.iter().any(|(c, sev, text)| c == "F0421" && *sev == Severity::Warning && text.contains("§9.7")),
            "`{line}`: {diags:?}"
        );
        assert!(diags.iter().all(|(_, sev, _)| *sev != Severity::Error), "`{line}`: {diags:?}");
    }
}

/// A link made before the table existed (the palette then offered the restricted proxy
/// fence with the wrong restriction) still opens, and the verifier names the real form.
#[test]
fn an_old_link_with_a_removed_form_decodes_and_names_the_real_form() {
    use fencelab::link::{decode, encode, SharePayload};
    use fencelab::model::{Fence, FenceSem, ProxyKind, SyncRestrict};
    let mut s = fencelab::load(MACHINE).scenario;
    s.threads[0].program.push(Instr::Fence(Fence::Proxy(ProxyKind::AsyncGeneric {
        sem: FenceSem::Release,
        restrict: SyncRestrict::SharedCluster,
    })));
    let code = encode(&SharePayload::scenario_only(s)).unwrap_or_default();
    let decoded = decode(&code).map(|p| p.scenario);
    assert!(decoded.is_ok(), "{decoded:?}");
    let scenario = decoded.unwrap_or_default();
    let diags = fencelab::verify::verify(&scenario, &fencelab::syntax::SourceMap::default());
    assert!(
        diags.iter().any(|d| d.code == "F0347"
            && d.help.as_deref().is_some_and(|h| h.contains("fence.proxy.async::generic.release.sync_restrict::shared::cta.cluster"))),
        "{diags:?}"
    );
}
