use fencelab::litmus::conformance::{judge_source, parse_expected, Property, Status, Summary};
use fencelab::check::Options;
#[test]
fn probe() {
    let root = std::path::Path::new("/work/shared/conformance/dat3m-ptx");
    let csv = std::fs::read_to_string(root.join("expected.csv")).unwrap();
    let mut all = Vec::new();
    for e in parse_expected(&csv).unwrap() {
        let src = std::fs::read_to_string(root.join(&e.path)).unwrap_or_default();
        let t = std::time::Instant::now();
        let j = judge_source(&e.path, &src, &[(Property::Condition, e.bit)], &Options { max_states: 30_000, ..Options::default() });
        let ms = t.elapsed().as_millis();
        for x in &j { if x.status == Status::Disagree || ms > 500 { println!("{ms}ms {x}"); } }
        all.extend(j);
    }
    println!("{}", Summary::of(&all));
    let mut reasons = std::collections::BTreeMap::new();
    for j in all.iter().filter(|j| j.status == Status::Unsupported) { *reasons.entry(j.detail.chars().take(60).collect::<String>()).or_insert(0) += 1; }
    for (r, n) in reasons { println!("{n:4} {r}"); }
}
