//! Share links: round trips, every error, and the frozen links of each format.

mod arb_instr;
mod arb_scenario;
mod corpus;
mod errors;
mod robustness;
mod roundtrip;
mod samples;

/// Runs `body` on a thread with a large stack: unoptimised deflate builds its compressor
/// state on the stack, more than the 2 MiB a test thread gets when cases pile up.
fn on_big_stack<T: Send + 'static>(body: impl FnOnce() -> T + Send + 'static) -> T {
    let thread = std::thread::Builder::new().stack_size(32 << 20).spawn(body);
    match thread.map(|t| t.join()) {
        Ok(Ok(value)) => value,
        Ok(Err(panic)) => std::panic::resume_unwind(panic),
        Err(e) => panic!("cannot start the test thread: {e}"),
    }
}
