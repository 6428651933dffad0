//! Stage timings for the browser's profiler and `e2e/timing.mjs`: the page clock, and
//! User Timing measures of which only the latest of each name is kept.

/// The page's `performance.now()` (ms); 0 where there is none.
pub fn now_ms() -> f64 {
    web_sys::window().and_then(|w| w.performance()).map_or(0.0, |p| p.now())
}

/// Runs `work` and records how long it took as the measure `name` (e.g. `fencelab:parse`).
pub fn measured<T>(name: &str, work: impl FnOnce() -> T) -> T {
    begin(name);
    let out = work();
    end(name);
    out
}

/// Starts the measure `name`, for work that ends in a later event; `end` records it.
pub fn begin(name: &str) {
    // Timing is best effort: a failing mark never stops the work.
    if let Some(perf) = web_sys::window().and_then(|w| w.performance()) {
        let _ = perf.mark(&format!("{name}:start"));
    }
}

/// Records the measure `name` from its `begin` to now; nothing without a `begin`.
pub fn end(name: &str) {
    let Some(perf) = web_sys::window().and_then(|w| w.performance()) else { return };
    let start = format!("{name}:start");
    if perf.get_entries_by_name_with_entry_type(&start, "mark").length() == 0 {
        return;
    }
    perf.clear_measures_with_measure_name(name);
    let _ = perf.measure_with_start_mark(name, &start);
    perf.clear_marks_with_mark_name(&start);
}
