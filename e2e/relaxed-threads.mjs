// `tests/support/relaxed_threads.rs` for the timing scripts: threads with relaxed loads and
// stores over three shared locations, no async agents (the benches' synchronous scenario).
export function relaxedThreads(threads, accesses) {
    let s = "cta A\nshared x0 @A = 0\nshared x1 @A = 0\nshared x2 @A = 0\n";
    for (let t = 0; t < threads; t++) {
        s += `thread t${t} @A:\n`;
        for (let i = 0; i < accesses; i++) {
            const loc = (t + i) % 3;
            s += i % 2 === 0 ? `    st.relaxed.cta.shared [x${loc}], ${i + 1}\n` : `    ld.relaxed.cta.shared r${i}, [x${loc}]\n`;
        }
    }
    return s + "expect race\n";
}
