// Packs the lazy panels' wasm modules that load together into one file each, and points
// the chunk loader (__wasm_split.js) at the packs (docs/loading.md, "What comes later";
// why and what they saved: benches/results/2026-11-25-loading-rounds.md, "Chunk packs").
// Run by scripts/split-app-wasm.sh on trunk's staging directory.
// Usage: node scripts/pack-chunks.mjs DIR
//
// Each `fetch()` a page starts costs its main thread 0.3-1.5 ms on the 2-core
// development machines, and a browser has six connections to a host: after the first
// verdict the explorer asks for about fifty modules in three waves, a lessons page for
// fifty at once, and the worker for seventeen before its first check. A pack is a wasm
// file of custom sections only, one per module (named by the module's file), so it is
// served, compressed and cached like any wasm, and the loader takes each module out with
// `WebAssembly.Module.customSections`.
//
// A split point of a pack opens its packs, each only while none of its modules has been
// asked for (a visit's usual order). Otherwise, and for every other split point (the
// block editor, the link maker, the timeline), each module is fetched from its own file
// as before. A module whose pack did not load comes from its own file too, so a failed
// pack costs a second request, not a panel.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * The explorer's waves, in the order it asks for them (components/src/explore.rs): the
 * observations and the fix panel after the verdict's frame, the stepper with the first
 * session, the lanes and the machine panel once the stepper is here. A wave's pack holds
 * the modules its split points need that no earlier wave's holds, so the explorer never
 * fetches a module twice.
 */
const WAVES = [
    { name: "verdict", splits: ["observed", "fix"] },
    { name: "stepper", splits: ["stepper"] },
    { name: "panels", splits: ["lanes", "machine"] },
];

/**
 * Split points that open on a page of their own, with every module they need in one pack,
 * the waves' modules included: the lessons routes (their scenario cards' stepper as well),
 * and the check worker's checker, the only split point a worker loads. Opened only by
 * the first split point named; the others find their modules in it while it is open.
 */
const WHOLE = [
    { name: "lessons", splits: ["lessons", "stepper"] },
    { name: "checker", splits: ["checker"] },
];

const dir = process.argv[2];
if (!dir) {
    console.error("usage: node scripts/pack-chunks.mjs DIR (trunk's staging directory)");
    process.exit(2);
}
const loaderPath = join(dir, "__wasm_split.js");
const loader = readFileSync(loaderPath, "utf8");

function fail(message) {
    console.error(`pack-chunks: ${message}; wasm-split-cli's loader may have changed shape (${loaderPath})`);
    process.exit(1);
}

// wasm-split-cli's loader: one `makeLoad` per module, fetching `./NAME.wasm`; a split
// point's export lists the chunks it needs.
const FETCHER =
    /const src = fetch\(new URL\("\.\/(\w+)\.wasm", import\.meta\.url\)\);\n\s*src\.catch\(\(\) => \{\}\);\n\s*return async \(imports\) => \(WebAssembly\.instantiateStreaming\(src, imports\)\);/g;
const SPLIT = /export const __wasm_split_load_(\w+) = wrapAsyncCb\(makeLoad\(\(\) => \{.*?\n, \[([^\]]*)\]\)\);/gs;

const modules = [...loader.matchAll(FETCHER)].map((m) => m[1]);
const splits = new Map(
    [...loader.matchAll(SPLIT)].map((m) => [
        m[1],
        [`split_${m[1]}`, ...m[2].split(",").map((d) => d.trim().replace(/^__chunk_/, "chunk_")).filter(Boolean)],
    ]),
);
if (modules.length === 0 || splits.size === 0) fail("no modules or split points found");
for (const needed of splits.values()) {
    for (const module of needed) if (!modules.includes(module)) fail(`${module} is needed but has no fetcher`);
}

const waveOf = {};
const packs = {};
for (const { name, splits: members } of WAVES) {
    const held = [];
    for (const split of members) {
        const needed = splits.get(split) ?? fail(`no split point \`${split}\``);
        for (const module of needed) {
            if (!(module in waveOf)) {
                waveOf[module] = name;
                held.push(module);
            }
        }
    }
    packs[name] = held;
}
// A split point of a wave opens every wave's pack that holds a module it needs (whichever
// of a wave's split points asks first), so a wave never fetches part of a pack file by file.
const packsOfSplit = Object.fromEntries(
    WAVES.flatMap((wave) => wave.splits).map((split) => [split, [...new Set(splits.get(split).map((module) => waveOf[module]))]]),
);
for (const { name, splits: members } of WHOLE) {
    packs[name] = [...new Set(members.flatMap((split) => splits.get(split) ?? fail(`no split point \`${split}\``)))];
    const opener = members[0];
    if (opener in packsOfSplit) fail(`\`${opener}\` already opens a wave's packs`);
    packsOfSplit[opener] = [name];
}
// Which packs hold each module (a wave's module may be in a whole pack too).
const packsOfModule = {};
for (const [name, held] of Object.entries(packs)) for (const module of held) (packsOfModule[module] ??= []).push(name);

const leb = (n) => {
    const out = [];
    do {
        let byte = n & 0x7f;
        n >>>= 7;
        if (n) byte |= 0x80;
        out.push(byte);
    } while (n);
    return Buffer.from(out);
};
for (const [name, held] of Object.entries(packs)) {
    const sections = held.map((module) => {
        const title = Buffer.from(module);
        const body = Buffer.concat([leb(title.length), title, readFileSync(join(dir, `${module}.wasm`))]);
        return Buffer.concat([Buffer.from([0]), leb(body.length), body]);
    });
    writeFileSync(join(dir, `pack_${name}.wasm`), Buffer.concat([Buffer.from("\0asm\x01\0\0\0", "latin1"), ...sections]));
}

const helpers = `
// Added by scripts/pack-chunks.mjs: modules that load together come in one file each.
const PACKS_OF_MODULE = ${JSON.stringify(packsOfModule)};
const PACKS = ${JSON.stringify(packs)};
const PACKS_OF_SPLIT = ${JSON.stringify(packsOfSplit)};
const askedFor = new Set();
const openPacks = new Map();
function openPacksFor(split) {
    for (const pack of PACKS_OF_SPLIT[split]) {
        if (openPacks.has(pack) || PACKS[pack].some((module) => askedFor.has(module))) continue;
        const compiled = WebAssembly.compileStreaming(fetch(new URL(\`./pack_\${pack}.wasm\`, import.meta.url)));
        openPacks.set(pack, compiled);
        // A pack that failed is not asked for again.
        compiled.catch(() => openPacks.delete(pack));
    }
}
function withPacks(split, load) {
    return () => {
        openPacksFor(split);
        return load();
    };
}
function fromOwnFile(name) {
    const src = fetch(new URL(\`./\${name}.wasm\`, import.meta.url));
    src.catch(() => {});
    return (imports) => WebAssembly.instantiateStreaming(src, imports);
}
function moduleSource(name) {
    askedFor.add(name);
    const from = (PACKS_OF_MODULE[name] ?? []).find((pack) => openPacks.has(pack));
    if (from === undefined) return fromOwnFile(name);
    const pack = openPacks.get(from);
    // Every module it holds has been asked for: the pack's bytes can go.
    if (PACKS[from].every((module) => askedFor.has(module))) openPacks.delete(from);
    const section = pack.then((compiled) => WebAssembly.Module.customSections(compiled, name)[0]);
    section.catch(() => {});
    return async (imports) => {
        const bytes = await section.catch(() => undefined);
        // A pack that did not come (or lacks the module): the module's own file.
        if (bytes === undefined) return fromOwnFile(name)(imports);
        return WebAssembly.instantiate(bytes, imports);
    };
}
`;

const packed = new Set(Object.keys(packsOfSplit));
const wrapped = new Set();
const rewritten = loader
    .replace(FETCHER, (_, module) => `return moduleSource("${module}");`)
    .replace(SPLIT, (whole, split) => {
        if (!packed.has(split)) return whole;
        wrapped.add(split);
        const head = "wrapAsyncCb(makeLoad(";
        return whole.replace(head, `wrapAsyncCb(withPacks("${split}", makeLoad(`).replace(/\]\)\);$/, "])));");
    });
for (const split of packed) if (!wrapped.has(split)) fail(`no export for \`${split}\``);
const firstLoad = rewritten.indexOf("function makeLoad(");
if (firstLoad < 0) fail("no makeLoad");
writeFileSync(loaderPath, rewritten.slice(0, firstLoad) + helpers.trimStart() + rewritten.slice(firstLoad));
const count = Object.values(packs).reduce((n, held) => n + held.length, 0);
console.log(`pack-chunks: ${count} modules (of ${modules.length}, some twice) in ${Object.keys(packs).length} packs (${Object.keys(packs).join(", ")})`);
