// Trunk's post_build hook (Trunk.toml) that ends the app wasm's compilation and starts
// its instantiation in different tasks (docs/loading.md). Trunk's start-up snippet hands
// wasm-bindgen's `init` the wasm's URL, and `init` compiles and instantiates in one chain
// of promises: on a cold load the end of the compilation, the instantiation and the
// wasm's start function were one main-thread task, 50-75 ms long in 8 of 20 loads here.
// The snippet this writes compiles the wasm, yields a task, and hands `init` the module.
// Usage: node scripts/compile-apart.mjs DIR (default: $TRUNK_STAGING_DIR)
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const dir = process.argv[2] ?? process.env.TRUNK_STAGING_DIR;
if (!dir) {
    console.error("usage: node scripts/compile-apart.mjs DIR (trunk's staging directory)");
    process.exit(2);
}
const page = join(dir, "index.html");
const html = readFileSync(page, "utf8");
// Trunk 0.21's snippet (src/pipelines/rust/output.rs); another trunk may write another.
const snippet = /const wasm = await init\(\{ module_or_path: '([^']+\.wasm)' \}\);/g;
const found = [...html.matchAll(snippet)];
if (found.length !== 1) {
    console.error(`compile-apart: expected trunk's one \`await init({ module_or_path: '….wasm' })\` in ${page}, found ${found.length}`);
    process.exit(1);
}
const url = found[0][1];
// A host that serves wasm without its MIME type cannot stream it: compile from the
// bytes then, as wasm-bindgen's own loader does, and say why the load is slower.
const replacement = `const response = await fetch('${url}');
if (!response.ok) throw new Error(\`fencelab: ${url}: HTTP \${response.status}\`);
const streamable = (response.headers.get("Content-Type") ?? "").startsWith("application/wasm");
if (!streamable) console.warn("fencelab: ${url} is not served as application/wasm, so it is compiled after it has downloaded, not while");
const compiled = await (streamable ? WebAssembly.compileStreaming(response) : response.arrayBuffer().then((bytes) => WebAssembly.compile(bytes)));
await new Promise((next) => setTimeout(next, 0));
const wasm = await init({ module_or_path: compiled });`;
writeFileSync(page, html.replace(snippet, () => replacement));
