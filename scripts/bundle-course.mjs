// Trunk's post_build hook (Trunk.toml) that puts the course in one file: every `.md` of
// the staged `lessons/` (the index and the lessons) in `lessons/course.txt`, which a
// lessons page fetches instead of the index and then each lesson it lists, two rounds of
// requests of which the second is one per lesson
// (benches/results/2026-11-25-loading-rounds.md, "A lessons page that opens first").
// The `.md` files stay next to it: a page that finds no bundle fetches them as before.
// Usage: node scripts/bundle-course.mjs DIR (default: $TRUNK_STAGING_DIR)
//
// The format (components/src/lessons/course.rs `unbundle`): a first line
// `fencelab course 1`, then per file a line `NAME BYTES` and the file's BYTES bytes of
// UTF-8, then a newline.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const dir = process.argv[2] ?? process.env.TRUNK_STAGING_DIR;
if (!dir) {
    console.error("usage: node scripts/bundle-course.mjs DIR (trunk's staging directory)");
    process.exit(2);
}
const lessons = join(dir, "lessons");
const files = readdirSync(lessons).filter((name) => name.endsWith(".md")).sort();
if (!files.includes("index.md")) {
    console.error(`bundle-course: ${lessons} has no index.md`);
    process.exit(1);
}
const parts = [Buffer.from("fencelab course 1\n")];
for (const name of files) {
    if (/\s/.test(name)) {
        console.error(`bundle-course: ${name}: a lesson file name has no spaces`);
        process.exit(1);
    }
    const body = readFileSync(join(lessons, name));
    parts.push(Buffer.from(`${name} ${body.length}\n`), body, Buffer.from("\n"));
}
const bundle = Buffer.concat(parts);
writeFileSync(join(lessons, "course.txt"), bundle);
console.log(`bundle-course: ${files.length} files, ${bundle.length} bytes in lessons/course.txt`);
