//! The verifier flags what PTX rejects and warns about suspicious forms.

use fencelab::diag::Severity;
use fencelab::load;

/// `(code, severity)` of every diagnostic for `src`.
fn findings(src: &str) -> Vec<(String, Severity)> {
    load(src).diagnostics.into_iter().map(|d| (d.code, d.severity)).collect()
}

fn has(src: &str, code: &str, severity: Severity) -> bool {
    findings(src).iter().any(|(c, s)| c == code && *s == severity)
}

const HEAD: &str = "cluster C\ncta A in C\ncta B in C\nglobal g = 0\nshared x @A = 0\nshared y @B = 0\nmbarrier bar @A count 1\nmbarrier peer @B count 1\n";

fn with(body: &str) -> String {
    format!("{HEAD}thread t @A:\n{body}\n")
}

#[test]
fn clean_handoff_has_no_findings() {
    let src = "cta A\nshared x @A = 0\nmbarrier bar @A count 1\nthread p @A:\n st.shared [x], 42\n mbarrier.arrive.release.cta.shared::cta [bar]\nthread c @A:\n wait mbarrier.try_wait.parity.acquire.cta.shared::cta [bar], 0\n ld.shared r0, [x]\nexpect correct\nforall (c:r0 == 42)\n";
    assert_eq!(findings(src), vec![]);
}

#[test]
fn load_release_and_store_acquire_are_rejected() {
    assert!(has(&with("ld.release.gpu r0, [g]"), "F0311", Severity::Error));
    assert!(has(&with("st.acquire.gpu [g], 1"), "F0311", Severity::Error));
    assert!(!has(&with("ld.acquire.gpu r0, [g]"), "F0311", Severity::Error));
}

#[test]
fn strong_access_needs_scope_and_weak_takes_none() {
    assert!(has(&with("ld.relaxed r0, [g]"), "F0312", Severity::Error));
    assert!(has(&with("st.gpu [g], 1"), "F0313", Severity::Error));
    assert!(has(&with("ld.volatile.gpu r0, [g]"), "F0313", Severity::Error));
    assert!(has(&with("ld.mmio.relaxed.gpu r0, [g]"), "F0314", Severity::Error));
    assert!(findings(&with("atom.add r0, [g], 1")).is_empty(), "atom defaults to .relaxed.gpu");
}

#[test]
fn red_cannot_acquire() {
    assert!(has(&with("red.acquire.gpu.add [g], 1"), "F0334", Severity::Error));
}

#[test]
fn wait_on_remote_mbarrier_is_rejected() {
    let src = with("wait mbarrier.try_wait.parity.acquire.cluster.shared::cluster [peer], 0");
    assert!(has(&src, "F0320", Severity::Error));
}

#[test]
fn local_form_arrive_on_peer_barrier_is_ub() {
    assert!(has(&with("mbarrier.arrive.release.cluster.shared::cta [peer]"), "F0321", Severity::Error));
    assert!(has(&with("mbarrier.arrive.release.cluster [peer]"), "F0321", Severity::Error));
    assert!(!has(&with("mbarrier.arrive.release.cluster.shared::cluster [peer]"), "F0321", Severity::Error));
}

#[test]
fn ub_errors_become_warnings_when_undefined_is_expected() {
    let src = format!("{}expect undefined\n", with("mbarrier.arrive.shared::cta [peer]"));
    assert!(has(&src, "F0321", Severity::Warning));
}

#[test]
fn remote_arrive_with_state_register_is_rejected() {
    assert!(has(&with("mbarrier.arrive.release.cluster.shared::cluster st, [peer]"), "F0322", Severity::Error));
}

#[test]
fn restricted_fences_need_their_exact_form() {
    assert!(has(&with("fence.acquire.sync_restrict::shared::cta.cluster"), "F0316", Severity::Error));
    assert!(has(&with("fence.release.sync_restrict::shared::cta.gpu"), "F0316", Severity::Error));
    assert!(!has(&with("fence.release.sync_restrict::shared::cta.cluster"), "F0316", Severity::Error));
}

#[test]
fn mbarrier_counts_are_range_checked() {
    assert!(has(&with("mbarrier.arrive.noComplete [bar], 1048576"), "F0310", Severity::Error));
    assert!(has("cta A\nmbarrier b @A count 0\n", "F0310", Severity::Error));
    assert!(has("cta A\nmbarrier b @A\nthread t @A:\n mbarrier.init [b], 0\n", "F0310", Severity::Error));
}

#[test]
fn no_complete_needs_count() {
    assert!(has(&with("mbarrier.arrive.noComplete [bar]"), "F0318", Severity::Error));
}

#[test]
fn cluster_scope_without_clusters_gets_a_note() {
    let src = "cta A\nglobal g = 0\nthread t @A:\n st.relaxed.cluster [g], 1\n";
    assert!(has(src, "F0501", Severity::Note));
    assert!(!has(&with("st.relaxed.cluster [g], 1"), "F0501", Severity::Note));
}

#[test]
fn unknown_names_and_labels() {
    assert!(has(&with("ld r0, [nope]"), "F0308", Severity::Error));
    assert!(has(&with("bra nowhere"), "F0308", Severity::Error));
    assert!(has(&with("ld r0, [bar]"), "F0309", Severity::Error));
    assert!(has(&with("st [g], r9"), "F0402", Severity::Warning));
}

#[test]
fn st_async_target_rules() {
    assert!(has(
        &with("st.async.shared::cluster.mbarrier::complete_tx::bytes [y], 1, [bar]"),
        "F0328",
        Severity::Error
    ));
    assert!(has(
        &with("red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add [x], 1, [bar]"),
        "F0328",
        Severity::Error
    ));
    assert!(findings(&with("st.async.shared::cluster.mbarrier::complete_tx::bytes [y], 1, [peer]")).is_empty());
    let lone = "cta A\ncta B\nshared y @B = 0\nmbarrier m @B count 1\nthread t @A:\n st.async.shared::cluster.mbarrier::complete_tx::bytes [y], 1, [m]\n";
    assert!(has(lone, "F0328", Severity::Error));
}

#[test]
fn tcgen05_cta_groups_must_not_mix() {
    let src = format!("{HEAD}tmem acc @A = 0\nthread t @A:\n tcgen05.mma.cta_group::1 [acc], [x], [x]\n tcgen05.commit.cta_group::2.mbarrier::arrive::one [bar]\n");
    assert!(has(&src, "F0329", Severity::Error));
}

#[test]
fn suspicious_forms_warn() {
    let cta_scope = format!("{HEAD}thread t @A:\n st.relaxed.cta [g], 1\nthread u @B:\n ld.relaxed.gpu r0, [g]\n");
    assert!(has(&cta_scope, "F0403", Severity::Warning));
    assert!(has(&with("bar.arrive 1, 64\n ld.shared r0, [x]"), "F0404", Severity::Warning));
    assert!(has(&with("st.shared [x], 1\n mbarrier.arrive.relaxed.cta [bar]"), "F0405", Severity::Warning));
    assert!(!has(
        &with("st.shared [x], 1\n fence.release.cta\n mbarrier.arrive.relaxed.cta [bar]"),
        "F0405",
        Severity::Warning
    ));
    assert!(has(
        &with("wait mbarrier.try_wait.parity.relaxed.cta [bar], 0\n ld.shared r0, [x]"),
        "F0406",
        Severity::Warning
    ));
}

#[test]
fn verify_works_without_a_source_map() {
    let parsed = fencelab::syntax::parse(&with("ld.release.gpu r0, [g]"));
    let diags = fencelab::verify::verify(&parsed.scenario, &fencelab::syntax::SourceMap::default());
    assert!(diags.iter().any(|d| d.code == "F0311" && d.labels.is_empty()));
}

#[test]
fn every_code_in_the_sources_is_documented() {
    fn visit(dir: &std::path::Path, out: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                visit(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(std::fs::read_to_string(&path).unwrap_or_default());
            }
        }
    }
    let mut sources = Vec::new();
    visit(std::path::Path::new("src"), &mut sources);
    let mut missing = Vec::new();
    for text in &sources {
        for (at, _) in text.match_indices("\"F0") {
            let code = text.get(at + 1..at + 6).unwrap_or("");
            if code.len() == 5
                && code.chars().skip(1).all(|c| c.is_ascii_digit())
                && fencelab::diag::explain(code).is_none()
            {
                missing.push(code.to_string());
            }
        }
    }
    assert!(missing.is_empty(), "codes without an explanation: {missing:?}");
}

#[test]
fn out_of_range_indices_are_errors_not_panics() {
    use fencelab::model::Space;
    let mut s = fencelab::syntax::parse(&with("ld.shared r0, [x]\n mbarrier.arrive [bar]")).scenario;
    if let Some(c) = s.ctas.first_mut() {
        c.cluster = 99;
    }
    if let Some(t) = s.threads.first_mut() {
        t.cta = 99;
    }
    if let Some(m) = s.mbarriers.first_mut() {
        m.cta = 99;
    }
    if let Some(l) = s.locations.get_mut(1) {
        l.space = Space::Shared(99);
    }
    let diags = fencelab::verify::verify(&s, &fencelab::syntax::SourceMap::default());
    let codes: Vec<&str> = diags.iter().map(|d| d.code.as_str()).collect();
    assert!(codes.contains(&"F0301") && codes.contains(&"F0302"), "{codes:?}");
    let _ = fencelab::syntax::print(&s);
}

#[test]
fn classic_bug_shapes_warn() {
    // §10 #1: default `.release.cta` arrive on a peer's barrier; §10 #2: `.cta` wait on it.
    let relay = format!(
        "{HEAD}thread p @B:\n mbarrier.arrive.shared::cluster [bar]\nthread c @A:\n wait mbarrier.try_wait.parity [bar], 0\n"
    );
    assert!(has(&relay, "F0418", Severity::Warning));
    assert!(has(&relay, "F0419", Severity::Warning));
    let fixed = format!(
        "{HEAD}thread p @B:\n mbarrier.arrive.release.cluster.shared::cluster [bar]\nthread c @A:\n wait mbarrier.try_wait.parity.acquire.cluster [bar], 0\n"
    );
    assert!(findings(&fixed).is_empty(), "{:?}", findings(&fixed));
    // §10 #3: relaxed remote arrive after a `.cta` release fence.
    let narrow_fence =
        format!("{HEAD}thread p @B:\n fence.release.cta\n mbarrier.arrive.relaxed.cluster.shared::cluster [bar]\n");
    assert!(has(&narrow_fence, "F0418", Severity::Warning));
    // A cluster fence does not help a relaxed `.cta` arrive on a peer's barrier (§1.6).
    let narrow_arrive =
        format!("{HEAD}thread p @B:\n fence.release.cluster\n mbarrier.arrive.relaxed.cta.shared::cluster [bar]\n");
    assert!(has(&narrow_arrive, "F0418", Severity::Warning));
    let wide_arrive = narrow_arrive.replace("relaxed.cta", "relaxed.cluster");
    assert!(!has(&wide_arrive, "F0418", Severity::Warning));
    // §10 #27: thread-initialised barrier signalled from a peer without fence.mbarrier_init.
    let init = "cluster C\ncta A in C\ncta B in C\nmbarrier m @A\nthread o @A:\n mbarrier.init [m], 1\nthread p @B:\n mbarrier.arrive.release.cluster.shared::cluster [m]\n";
    assert!(has(init, "F0414", Severity::Warning));
    let published =
        init.replace("mbarrier.init [m], 1\n", "mbarrier.init [m], 1\n fence.mbarrier_init.release.cluster\n");
    assert!(!has(&published, "F0414", Severity::Warning));
}

#[test]
fn wgmma_and_group_misuse_warns() {
    assert!(has(&with("wgmma.mma_async.sync.aligned d, [x], [x]"), "F0415", Severity::Warning));
    let early_read = with("wgmma.fence.sync.aligned\n wgmma.mma_async.sync.aligned d, [x], [x]\n st.shared [x], d");
    assert!(has(&early_read, "F0416", Severity::Warning));
    let waited = with("wgmma.fence.sync.aligned\n wgmma.mma_async.sync.aligned d, [x], [x]\n wgmma.commit_group.sync.aligned\n wgmma.wait_group.sync.aligned 0\n st.shared [x], d");
    assert!(!has(&waited, "F0416", Severity::Warning));
    assert!(has(&with("cp.async.wait_all"), "F0417", Severity::Warning));
    let uncommitted = with("cp.async.ca.shared.global [x], [g], 4\n cp.async.wait_group 0");
    assert!(has(&uncommitted, "F0420", Severity::Warning));
    let committed = with("cp.async.ca.shared.global [x], [g], 4\n cp.async.commit_group\n cp.async.wait_group 0");
    assert!(!has(&committed, "F0420", Severity::Warning));
}

/// Ref §6.2: `.multicast::cluster` exists only on the global → shared::cluster copy
/// completed on an mbarrier; every other form is rejected at the instruction, with help.
#[test]
fn multicast_only_on_the_shared_cluster_global_form() {
    let legal = with("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [x], [g], 16, [bar], ([y], [peer])");
    assert!(!findings(&legal).iter().any(|(c, _)| c == "F0336"), "{:?}", findings(&legal));
    let wrong = [
        "cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes.multicast::cluster [x], [g], 16, [bar], ([y], [peer])",
        "cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.multicast::cluster [y], [x], 16, [peer], ([y], [peer])",
        "cp.async.bulk.global.shared::cta.bulk_group.multicast::cluster [g], [x], 16, ([y], [peer])",
        "cp.reduce.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.add.multicast::cluster [x], [g], 16, [bar], ([y], [peer])",
    ];
    for body in wrong {
        let src = with(body);
        let loaded = load(&src);
        let d = loaded.diagnostics.iter().find(|d| d.code == "F0336");
        let d = d.unwrap_or_else(|| panic!("no F0336 for `{body}`: {:?}", findings(&src)));
        assert_eq!(d.severity, Severity::Error);
        let text = fencelab::diag::render(d, &src, "t.fence");
        assert!(text.contains("t.fence:10:"), "the error points at the instruction's line: {text}");
        assert!(text.contains("help:") && text.contains("shared::cluster.global"), "{text}");
    }
}

/// `(code, line, column)` of each error's primary label.
fn errors_at(src: &str) -> Vec<(String, usize, usize)> {
    load(src)
        .diagnostics
        .into_iter()
        .filter(|d| d.severity == Severity::Error)
        .filter_map(|d| d.primary_start().map(|at| (d.code.clone(), fencelab::diag::line_col(src, at))))
        .map(|(code, (line, col))| (code, line, col))
        .collect()
}

const PAIR_MMA: &str = "tcgen05.mma.cta_group::2 [acc0], [a0], [b0], ([acc1], [a1], [b1])";

/// A cluster `C` of `ctas`, `tmem`/`shared` halves named after `leader` and `peer`, and
/// one thread in `issuer` running `body`.
fn pair_src(ctas: &str, leader: &str, peer: &str, issuer: &str, body: &str) -> String {
    format!(
        "cluster C\ncluster D\n{ctas}tmem acc0 @{leader} = 0\nshared a0 @{leader} = 0\nshared b0 @{leader} = 0\n\
         tmem acc1 @{peer} = 0\nshared a1 @{peer} = 0\nshared b1 @{peer} = 0\nthread t @{issuer}:\n    {body}\n"
    )
}

#[test]
fn a_pair_mma_between_the_two_ctas_of_a_pair_is_accepted() {
    let src = pair_src("cta L in C\ncta P in C\n", "L", "P", "L", PAIR_MMA);
    assert_eq!(errors_at(&src), vec![]);
}

#[test]
fn a_pair_in_a_cluster_of_odd_size_is_an_error_at_its_line() {
    // `L` is rank 2 of three CTAs: no rank 3 to pair with.
    let src = pair_src("cta Q in C\ncta P in C\ncta L in C\n", "L", "P", "L", PAIR_MMA);
    assert_eq!(errors_at(&src), vec![("F0337".to_string(), 13, 5)], "{:?}", load(&src).diagnostics);
    assert!(load(&src).diagnostics.iter().any(|d| d.message.contains("no pair peer")));
    // Ranks 0 and 1 of the same cluster still pair.
    let paired = pair_src("cta L in C\ncta P in C\ncta Q in C\n", "L", "P", "L", PAIR_MMA);
    assert_eq!(errors_at(&paired), vec![]);
}

#[test]
fn a_pair_across_clusters_is_an_error_at_the_peer_operand() {
    let src = pair_src("cta L in C\ncta P in C\ncta X in D\ncta Y in D\n", "L", "X", "L", PAIR_MMA);
    let errors = errors_at(&src);
    // The three peer halves live in `X`, of cluster `D`: operands 4 to 6 on line 14.
    assert_eq!(errors.iter().filter(|(c, l, _)| c == "F0337" && *l == 14).count(), 3, "{errors:?}");
    assert!(load(&src).diagnostics.iter().any(|d| d.message.contains("pair across clusters")));
    assert_eq!(errors.first().map(|e| e.2), Some(PAIR_MMA.find("([acc1]").unwrap_or(0) + 6));
}

#[test]
fn a_pair_mma_from_the_odd_rank_or_with_a_cta_outside_the_pair_is_an_error() {
    let odd = pair_src("cta L in C\ncta P in C\n", "P", "L", "P", PAIR_MMA);
    assert!(load(&odd).diagnostics.iter().any(|d| d.code == "F0337" && d.message.contains("odd rank")));
    // Ranks 0 and 2 are not a pair (0 pairs with 1).
    let other = pair_src("cta L in C\ncta M in C\ncta P in C\ncta Q in C\n", "L", "P", "L", PAIR_MMA);
    assert!(load(&other).diagnostics.iter().any(|d| d.code == "F0337" && d.message.contains("not the pair peer")));
}

#[test]
fn mixed_cta_groups_are_an_error_at_the_second_form() {
    let body = format!("{PAIR_MMA}\n    tcgen05.commit.cta_group::1.mbarrier::arrive::one [m]");
    let src = pair_src("cta L in C\ncta P in C\nmbarrier m @L count 1\n", "L", "P", "L", &body);
    assert_eq!(errors_at(&src), vec![("F0329".to_string(), 14, 5)]);
}

#[test]
fn pair_collectives_need_both_ctas_of_the_pair() {
    let alone = "cluster C\ncta L in C\ncta P in C\nshared t @L = 0\nthread a @L:\n    tcgen05.alloc.cta_group::2.sync.aligned [t], 32\n";
    assert_eq!(errors_at(alone), vec![("F0338".to_string(), 6, 5)]);
    let both = format!("{alone}shared u @P = 0\nthread b @P:\n    tcgen05.alloc.cta_group::2.sync.aligned [u], 32\n");
    assert!(!has(&both, "F0338", Severity::Error));
}

#[test]
fn a_pair_copy_may_signal_the_pair_peer_and_only_a_tensor_load_takes_cta_group() {
    let head = "cluster C\ncta L in C\ncta P in C\ncta Q in C\ncta R in C\nglobal g = 0 size 16\nshared p @P = 0 size 16\nmbarrier full @L count 1\nmbarrier far @Q count 1\n";
    let copy = |mods: &str, bar: &str| {
        format!("{head}thread t @P:\n    cp.async.bulk{mods}.shared::cluster.global.mbarrier::complete_tx::bytes [p], [g], 16, [{bar}]\n")
    };
    assert_eq!(errors_at(&copy(".tensor.2d.cta_group::2", "full")), vec![]);
    assert!(has(&copy(".tensor.2d", "full"), "F0326", Severity::Error), "without the pair form the barrier must be the destination's");
    assert!(has(&copy(".tensor.2d.cta_group::2", "far"), "F0326", Severity::Error), "Q is not P's pair peer");
    assert!(has(&copy(".cta_group::2", "full"), "F0339", Severity::Error), "only the tensor form takes .cta_group");
}
