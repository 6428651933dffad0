// What the timing scripts (`check-speed.mjs`, `engine-speed.mjs`, `worker-speed.mjs`,
// `load-timing.mjs`, `timing.mjs`, `fix-timing.mjs`, `fix-start.mjs`) share.
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";

/** The release CLI the scripts time against. */
export const cli = "target/release/fencelab";

/** `tests/support/relaxed_threads.rs`: threads with relaxed loads and stores over three
 *  shared locations, no async agents (the benches' synchronous scenario). */
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

/** The median of `xs` (the upper one of an even count); NaN for none. */
export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

/** The CLI's JSON reports on `files`, in one process (it prints an array only for several). */
function nativeReports(files) {
    let out;
    try {
        out = execFileSync(cli, ["check", "--json", "--mode", "pragmatic", ...files], { encoding: "utf8", maxBuffer: 1 << 28 });
    } catch (e) {
        out = e.stdout; // exit 1: an expectation failed; the report is still printed
    }
    const reports = JSON.parse(out);
    return files.length === 1 ? [reports] : reports;
}

/** One native check of `file`: the CLI's own check time and its stats. */
export function nativeOnce(file) {
    return nativeReports([file])[0].stats;
}

/** `file` checked `times` times in one CLI process, back to back: each check's time (ms).
 *  A process's first checks run cold (fresh heap pages; on these hosts also a core that
 *  speeds up only after some 100 ms of work), the later ones at native code's warm speed. */
export function nativeBackToBack(file, times) {
    return nativeReports(Array(times).fill(file)).map((report) => report.stats.ms);
}

/** The scenario files the engine's `warm_up(run)` checks, by run, as `engine/src/lib.rs`
 *  lists them; run 2, three threads of four relaxed accesses, is written into `dir`. */
export function warmUpScenarios(dir) {
    const relaxed = join(dir, "relaxed_threads_3x4.fence");
    writeFileSync(relaxed, relaxedThreads(3, 4));
    return [
        "tests/scenarios/async/pipeline_ws_arrive_before_last_read.fence",
        "tests/scenarios/async/pipeline_ws_parity_not_flipped.fence",
        relaxed,
    ];
}
