#[test]
fn probe2() {
    let src = std::fs::read_to_string("/work/shared/conformance/dat3m-ptx/Manual/SB+bar-diff-cta.litmus").unwrap();
    let s = fencelab::litmus::import(&src).unwrap();
    println!("{:#?}", s.threads[0].program);
    let r = fencelab::check::check(&s, &Default::default());
    println!("{:?} {:?}", r.verdict, r.outcomes);
    for f in &r.findings { println!("{}", f.message); }
}
