// A tiny static file server for the built app (dist/), bound to 127.0.0.1 only.
// It stops by itself after `lifetimeMs` so a crashed test run never leaves it behind.
import { createServer } from "node:http";
import { readFile, stat } from "node:fs/promises";
import { extname, join, normalize, resolve, sep } from "node:path";

const TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".wasm": "application/wasm",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".json": "application/json",
    ".md": "text/markdown; charset=utf-8",
    ".txt": "text/plain; charset=utf-8",
};

/** Serves `root` on an ephemeral port; returns `{ url, close }`. */
export async function startServer({ root, lifetimeMs = 10 * 60 * 1000 } = {}) {
    const base = resolve(root);
    const server = createServer(async (req, res) => {
        try {
            const path = decodeURIComponent(new URL(req.url, "http://x").pathname);
            let file = normalize(join(base, path));
            if (file !== base && !file.startsWith(base + sep)) {
                res.writeHead(403).end();
                return;
            }
            if ((await stat(file).catch(() => null))?.isDirectory()) file = join(file, "index.html");
            const body = await readFile(file);
            res.writeHead(200, {
                "content-type": TYPES[extname(file)] ?? "application/octet-stream",
                "cache-control": "no-store",
            });
            res.end(body);
        } catch {
            res.writeHead(404, { "content-type": "text/plain" }).end("not found");
        }
    });
    await new Promise((ok, fail) => {
        server.once("error", fail);
        server.listen(0, "127.0.0.1", ok);
    });
    const timer = setTimeout(() => server.close(), lifetimeMs);
    timer.unref();
    const { port } = server.address();
    return {
        url: `http://127.0.0.1:${port}`,
        close: () =>
            new Promise((ok) => {
                clearTimeout(timer);
                server.closeAllConnections?.();
                server.close(() => ok());
            }),
    };
}

// `node e2e/server.mjs [dir]` serves a build by hand until Ctrl-C (or the lifetime ends).
if (import.meta.url === `file://${process.argv[1]}`) {
    const { url } = await startServer({ root: process.argv[2] ?? "dist", lifetimeMs: 60 * 60 * 1000 });
    console.log(`serving ${process.argv[2] ?? "dist"} at ${url}/`);
}
