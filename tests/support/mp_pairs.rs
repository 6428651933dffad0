//! `k` independent (correct) message-passing pairs, each in its own pair of CTAs: the
//! checker's scaling workload, shared by `tests/checker_api.rs` and `benches/checker.rs`.
//! Racy pairs would have 3^k final outcomes for any outcome table to list; these have one.

pub fn mp_pairs(k: usize) -> String {
    let mut s = String::new();
    for i in 0..k {
        s += &format!("cta P{i}\ncta C{i}\nglobal d{i} = 0\nglobal f{i} = 0\n");
    }
    for i in 0..k {
        s += &format!(
            "thread p{i} @P{i}:\n    st.global [d{i}], 1\n    st.release.gpu.global [f{i}], 1\n\
             thread c{i} @C{i}:\n    wait ld.acquire.gpu.global r0, [f{i}] == 1\n    ld.global r1, [d{i}]\n"
        );
    }
    s + "expect correct\n"
}
