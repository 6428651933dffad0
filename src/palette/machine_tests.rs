use super::*;
use crate::model::Scenario;
use crate::syntax::parse;

/// The app's starter: one CTA, a shared location, an mbarrier, two threads, a condition.
const STARTER: &str = "\
# Intra-CTA handoff through an mbarrier
cta A
shared x @A = 0
mbarrier bar @A count 1

thread producer @A:
    st.shared [x], 42
    mbarrier.arrive.release.cta.shared::cta [bar]

thread consumer @A:
    wait mbarrier.try_wait.parity.acquire.cta.shared::cta [bar], 0
    ld.shared r0, [x]

expect correct
forall (consumer:r0 == 42)
";

/// Three CTAs, the last one holding things, and comments to keep in place.
const THREE: &str = "\
cluster C
cta A in C
cta B in C
cta D
global g = 0
shared s @D = 0  # staging
mbarrier m @D count 2

thread t0 @A:
    ld.global r0, [g]

# runs in D
thread t1 @D:
    st.shared [s], 1
    mbarrier.arrive.release.cta.shared::cta [m]
";

fn run(src: &str, edit: MachineEdit) -> Result<String, EditError> {
    apply(src, &Edit::Machine(edit))
}

fn ok(src: &str, edit: MachineEdit) -> String {
    run(src, edit).unwrap_or_else(|e| panic!("{e}"))
}

/// The scenario of `src`, which must load with no error at all.
fn clean(src: &str) -> Scenario {
    let loaded = crate::load(src);
    assert!(!loaded.has_errors(), "{src}\n{:?}", loaded.diagnostics);
    loaded.scenario
}

fn cta_of<'a>(s: &'a Scenario, thread: &str) -> &'a str {
    let t = s.thread(thread).and_then(|t| s.threads.get(t)).map(|t| t.cta);
    t.and_then(|c| s.ctas.get(c)).map_or("?", |c| c.name.as_str())
}

fn s(name: &str) -> String {
    name.to_string()
}

#[test]
fn adds_get_fresh_readable_names() {
    let out = ok(STARTER, MachineEdit::AddCluster);
    assert!(out.contains("\ncluster C\n"), "{out}");
    let out = ok(&out, MachineEdit::AddCluster);
    assert!(out.contains("\ncluster C2\n"), "{out}");
    let out = ok(&out, MachineEdit::AddCta { cluster: Some(s("C2")) });
    assert!(out.contains("\ncta B in C2\n"), "{out}");
    let out = ok(&out, MachineEdit::AddThread { cta: s("B") });
    assert!(out.contains("\nthread t2 @B:\n"), "{out}");
    let out = ok(&out, MachineEdit::AddLocation { memory: Memory::Shared(s("B")) });
    assert!(out.contains("\nshared x2 @B = 0\n"), "{out}");
    let out = ok(&out, MachineEdit::AddLocation { memory: Memory::Global });
    assert!(out.contains("\nglobal x3 = 0\n"), "{out}");
    let out = ok(&out, MachineEdit::AddMbarrier { cta: s("B"), count: 1 });
    assert!(out.contains("\nmbarrier bar2 @B count 1\n"), "{out}");
    clean(&out);
}

#[test]
fn a_new_cta_skips_names_a_cluster_holds() {
    // `C` is taken by the cluster and `D` by a CTA: the next letter after `D` is `E`.
    let out = ok(THREE, MachineEdit::AddCta { cluster: None });
    assert!(out.contains("\ncta E\n"), "{out}");
    let sc = clean(&out);
    assert_eq!(sc.clusters.len(), 3, "a lone CTA gets its own cluster");
}

#[test]
fn numbered_threads_continue_their_numbering() {
    let out = ok(THREE, MachineEdit::AddThread { cta: s("B") });
    assert!(out.contains("\nthread t2 @B:\n"), "{out}");
    clean(&out);
}

#[test]
fn the_comments_opening_the_file_stay_on_top() {
    let src = "# Title\n# what this file shows\ncta A  # the only CTA\nthread t @A:\n";
    let out = ok(src, MachineEdit::AddCluster);
    assert!(out.starts_with("# Title\n\n# what this file shows\ncluster C\ncta A  # the only CTA\n"), "{out}");
    let back = ok(&out, MachineEdit::Remove(Item::Cluster(s("C"))));
    assert!(back.starts_with("# Title\n\n# what this file shows\ncta A  # the only CTA\n"), "{back}");
}

#[test]
fn an_mbarrier_needs_a_count() {
    let err = run(STARTER, MachineEdit::AddMbarrier { cta: s("A"), count: 0 }).unwrap_err();
    assert_eq!(err, EditError::ZeroArrivals);
    assert!(err.to_string().contains("at least 1"), "{err}");
}

#[test]
fn moving_a_thread_changes_only_its_cta() {
    let out = ok(THREE, MachineEdit::MoveThread { thread: s("t0"), cta: s("D") });
    let sc = clean(&out);
    assert_eq!(cta_of(&sc, "t0"), "D");
    assert_eq!(cta_of(&sc, "t1"), "D");
    let err = run(&out, MachineEdit::MoveThread { thread: s("t0"), cta: s("D") }).unwrap_err();
    assert_eq!(err, EditError::AlreadyIn { name: s("t0"), place: s("D") });
    assert_eq!(err.to_string(), "`t0` is already in `D`");
}

#[test]
fn a_lone_cta_joining_a_cluster_leaves_no_empty_cluster_behind() {
    let out = ok(THREE, MachineEdit::MoveCta { cta: s("D"), cluster: Some(s("C")) });
    assert!(out.contains("\ncta D in C\n"), "{out}");
    let sc = clean(&out);
    assert_eq!(sc.clusters.len(), 1, "{out}");
    // And back to a cluster of its own.
    let out = ok(&out, MachineEdit::MoveCta { cta: s("D"), cluster: None });
    assert!(out.contains("\ncta D\n"), "{out}");
    assert_eq!(clean(&out).clusters.len(), 2);
    let err = run(&out, MachineEdit::MoveCta { cta: s("D"), cluster: None }).unwrap_err();
    assert_eq!(err, EditError::AlreadyOwnCluster { cta: s("D") });
    assert!(err.to_string().contains("already in a cluster of its own"), "{err}");
}

#[test]
fn a_cta_cannot_take_a_cluster_name_that_exists() {
    let src = "cluster A\ncta B in A\ncluster K\ncta A in K\n";
    let err = run(src, MachineEdit::MoveCta { cta: s("A"), cluster: None }).unwrap_err();
    assert_eq!(err, EditError::ClusterNameTaken { cta: s("A") });
    assert!(err.to_string().contains("a cluster is already named `A`"), "{err}");
}

#[test]
fn locations_switch_between_global_and_shared_and_move_between_ctas() {
    let out = ok(THREE, MachineEdit::MoveLocation { location: s("g"), memory: Memory::Shared(s("A")) });
    assert!(out.contains("\nshared g @A = 0\n"), "{out}");
    let out = ok(&out, MachineEdit::MoveLocation { location: s("s"), memory: Memory::Global });
    assert!(out.contains("\nglobal s = 0  # staging\n"), "{out}");
    let out = ok(&out, MachineEdit::MoveLocation { location: s("s"), memory: Memory::Shared(s("B")) });
    assert!(out.contains("\nshared s @B = 0  # staging\n"), "{out}");
}

#[test]
fn a_placement_that_breaks_an_access_is_left_to_the_verifier() {
    let out = ok(STARTER, MachineEdit::AddCta { cluster: None });
    let out = ok(&out, MachineEdit::MoveLocation { location: s("x"), memory: Memory::Shared(s("B")) });
    assert!(!parse(&out).has_errors(), "the text still parses");
    assert!(crate::load(&out).has_errors(), "`.shared::cta` access to another CTA's memory is flagged");
}

#[test]
fn mbarriers_move_between_ctas() {
    let out = ok(THREE, MachineEdit::MoveMbarrier { mbarrier: s("m"), cta: s("B") });
    assert!(out.contains("\nmbarrier m @B count 2\n"), "{out}");
}

#[test]
fn removing_something_used_is_refused_naming_the_user() {
    let err = run(STARTER, MachineEdit::Remove(Item::Mbarrier(s("bar")))).unwrap_err();
    assert_eq!(err, EditError::InUse { name: s("bar"), user: s("`producer` (line 8)") });
    assert_eq!(err.to_string(), "`bar` is used by `producer` (line 8)");
    let err = run(STARTER, MachineEdit::Remove(Item::Location(s("x")))).unwrap_err();
    assert_eq!(err.to_string(), "`x` is used by `producer` (line 7)");
    let err = run(STARTER, MachineEdit::Remove(Item::Thread(s("consumer")))).unwrap_err();
    assert_eq!(err.to_string(), "`consumer` is used by the final condition (line 15)");
    let err = run(STARTER, MachineEdit::Remove(Item::Cta(s("A")))).unwrap_err();
    assert_eq!(err, EditError::NotEmpty { name: s("A"), content: s("thread `producer` (line 6)") });
    assert_eq!(err.to_string(), "`A` still holds thread `producer` (line 6)");
    let err = run(THREE, MachineEdit::Remove(Item::Cluster(s("C")))).unwrap_err();
    assert_eq!(err.to_string(), "`C` still holds CTA `A` (line 2)");
    let src = "global x = 0\nalias y = x via surface\n";
    let err = run(src, MachineEdit::Remove(Item::Location(s("x")))).unwrap_err();
    assert_eq!(err.to_string(), "`x` is used by alias `y` (line 2)");
    let src = "cta A\nglobal x = 0\nthread t @A:\nexists (x == 1)\n";
    let err = run(src, MachineEdit::Remove(Item::Location(s("x")))).unwrap_err();
    assert_eq!(err.to_string(), "`x` is used by the final condition (line 4)");
}

/// Users are found through what instructions name (their facts): a multicast
/// barrier of `tcgen05.commit` and a TMA's destination count as uses.
#[test]
fn removal_sees_every_operand_an_instruction_names() {
    let src = "cluster C\ncta A in C\ncta B in C\nglobal g = 0\nshared s @A = 0\nshared d @B = 0\nmbarrier m @A count 1\nmbarrier n @B count 1\n\nthread t @A:\n    tcgen05.commit.cta_group::1.mbarrier::arrive::one.multicast::cluster [m], [n]\n    cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [s], [g], 4, [m]\n";
    let parsed = crate::syntax::parse(src);
    assert!(!parsed.has_errors(), "{:?}", parsed.diagnostics);
    let err = run(src, MachineEdit::Remove(Item::Mbarrier(s("n")))).unwrap_err();
    assert_eq!(err, EditError::InUse { name: s("n"), user: s("`t` (line 11)") });
    let err = run(src, MachineEdit::Remove(Item::Location(s("g")))).unwrap_err();
    assert_eq!(err, EditError::InUse { name: s("g"), user: s("`t` (line 12)") });
    assert!(run(src, MachineEdit::Remove(Item::Location(s("d")))).is_ok());
}

#[test]
fn removing_an_empty_cta_renumbers_what_follows_it() {
    let parsed = parse(THREE);
    let (mut sc, mut map) = (parsed.scenario, parsed.source_map);
    machine::apply(&mut sc, &mut map, THREE, &MachineEdit::Remove(Item::Cta(s("B")))).unwrap();
    let d = sc.cta("D").unwrap();
    assert_eq!(cta_of(&sc, "t1"), "D");
    assert_eq!(cta_of(&sc, "t0"), "A");
    assert_eq!(sc.mbarriers[0].cta, d);
    assert_eq!(sc.locations[1].space, crate::model::Space::Shared(d));
    let out = crate::syntax::print_with_comments(&sc, &map);
    assert!(out.contains("# staging") && out.contains("# runs in D\nthread t1 @D:"), "{out}");
    clean(&out);
}

#[test]
fn removing_a_cluster_renumbers_ctas_and_drops_its_comment() {
    let src = "# lone\ncluster E\ncluster C\ncta A in C\ncta B in C\nthread t @B:\n";
    let parsed = parse(src);
    let (mut sc, mut map) = (parsed.scenario, parsed.source_map);
    machine::apply(&mut sc, &mut map, src, &MachineEdit::Remove(Item::Cluster(s("E")))).unwrap();
    assert!(sc.ctas.iter().all(|c| sc.clusters.get(c.cluster).is_some_and(|k| k.name == "C")), "{sc:?}");
    let out = crate::syntax::print_with_comments(&sc, &map);
    assert!(!out.contains("cluster E"), "{out}");
    clean(&out);
}

#[test]
fn removing_unused_items_keeps_other_comments_with_their_items() {
    let out = ok(THREE, MachineEdit::Remove(Item::Thread(s("t0"))));
    assert!(!out.contains("thread t0") && out.contains("# runs in D\nthread t1 @D:"), "{out}");
    assert!(out.contains("mbarrier.arrive.release.cta.shared::cta [m]"), "{out}");
    let out = ok(&out, MachineEdit::Remove(Item::Location(s("g"))));
    assert!(!out.contains("global g"), "{out}");
    assert!(out.contains("shared s @D = 0  # staging"), "{out}");
    clean(&out);
    // A CTA leaving an explicit cluster leaves the cluster; a lone CTA's cluster goes with it.
    let out = ok(THREE, MachineEdit::Remove(Item::Cta(s("B"))));
    assert!(!out.contains("cta B") && out.contains("\ncta A in C\n"), "{out}");
    assert_eq!(clean(&out).clusters.len(), 2, "{out}");
    let text = ok(STARTER, MachineEdit::AddCta { cluster: None });
    let back = ok(&text, MachineEdit::Remove(Item::Cta(s("B"))));
    assert_eq!(clean(&back).clusters.len(), 1, "{back}");
}

#[test]
fn unknown_names_and_tensor_memory_are_errors_not_panics() {
    let err = run(STARTER, MachineEdit::AddThread { cta: s("Z") }).unwrap_err();
    assert_eq!(err, EditError::Unknown(Item::Cta(s("Z"))));
    assert_eq!(err.to_string(), "there is no CTA `Z`");
    assert_eq!(run(STARTER, MachineEdit::AddCta { cluster: Some(s("Q")) }), Err(EditError::Unknown(Item::Cluster(s("Q")))));
    assert_eq!(run(STARTER, MachineEdit::Remove(Item::Thread(s("nobody")))), Err(EditError::Unknown(Item::Thread(s("nobody")))));
    assert_eq!(
        run(STARTER, MachineEdit::MoveMbarrier { mbarrier: s("x"), cta: s("A") }),
        Err(EditError::Unknown(Item::Mbarrier(s("x"))))
    );
    let src = "cta A\ncta B\ntmem acc @A = 0\n";
    let err = run(src, MachineEdit::MoveLocation { location: s("acc"), memory: Memory::Global }).unwrap_err();
    assert_eq!(err, EditError::TmemToGlobal { location: s("acc") });
    assert!(err.to_string().contains("tensor memory"), "{err}");
    let out = ok(src, MachineEdit::MoveLocation { location: s("acc"), memory: Memory::Shared(s("B")) });
    assert!(out.contains("tmem acc @B = 0"), "{out}");
}
