//! `threads` threads of one CTA, each making `accesses` relaxed loads and stores over three
//! shared locations: a racy scenario whose state space outgrows any cap, for measuring
//! states per second and bytes per state (`benches/checker.rs`).

pub fn relaxed_threads(threads: usize, accesses: usize) -> String {
    let mut s = String::from("cta A\nshared x0 @A = 0\nshared x1 @A = 0\nshared x2 @A = 0\n");
    for t in 0..threads {
        s += &format!("thread t{t} @A:\n");
        for i in 0..accesses {
            let loc = (t + i) % 3;
            s += &if i % 2 == 0 {
                format!("    st.relaxed.cta.shared [x{loc}], {}\n", i + 1)
            } else {
                format!("    ld.relaxed.cta.shared r{i}, [x{loc}]\n")
            };
        }
    }
    s + "expect race\n"
}
