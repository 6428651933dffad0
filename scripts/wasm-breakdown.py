#!/usr/bin/env python3
"""Where the app's wasm bytes go: code bytes per crate (fencelab and the app per module)
and the largest functions, read from the function names rustc leaves in the wasm cargo
builds (before wasm-bindgen strips them; its `describe` shims are dropped then too).
Each crate's row also gives its code gzipped on its own: a share of what the network
carries (the shipped wasm is further shrunk by wasm-opt, so take it as a proportion).

Usage: scripts/wasm-breakdown.py [path.wasm] [rows]
  default: target/wasm32-unknown-unknown/wasm-release/fencelab-app.wasm (after `make build`).
"""
import collections
import re
import sys
import zlib

ESCAPES = [("$LT$", "<"), ("$GT$", ">"), ("$u20$", " "), ("$C$", ","), ("$u7b$", "{"), ("$u7d$", "}"),
           ("$RF$", "&"), ("$BP$", "*"), ("$u27$", "'"), ("$u5b$", "["), ("$u5d$", "]"), ("$u3b$", ";"),
           ("$u2b$", "+"), ("$u22$", '"'), ("$LP$", "("), ("$RP$", ")")]

SECTIONS = {1: "type", 2: "import", 3: "function", 4: "table", 5: "memory", 6: "global", 7: "export",
            8: "start", 9: "element", 10: "code", 11: "data", 12: "datacount"}


def leb(data, at):
    value = shift = 0
    while True:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, at


def demangle_v0(name):
    """v0 mangling (`_R...`, what the release wasm's nightly-enabled build uses) to the
    crate and, for a plain nested path (`_RNvNtCs…_5crate6module4item`), its modules and
    item; other forms (impls, generic instances) to the crate and the mangled name."""
    crate = re.search(r"Cs[0-9A-Za-z]*_(\d+)", name)
    if not crate:
        return name
    at = crate.end()
    parts = [name[at:at + int(crate.group(1))]]
    at += int(crate.group(1))
    depth = len(re.match(r"_R((?:N[a-zA-Z])*)", name).group(1)) // 2
    for _ in range(depth):
        ident = re.match(r"(\d+)_?", name[at:])
        if not ident:
            break
        at += ident.end()
        parts.append(name[at:at + int(ident.group(1))])
        at += int(ident.group(1))
    if len(parts) == 1:
        parts.append(name)
    return "::".join(parts)


def demangle(name):
    """Legacy Rust mangling (`_ZN...E`) to a readable path; v0 (`_R...`) as `demangle_v0`."""
    if name.startswith("_R"):
        return demangle_v0(name)
    if not name.startswith("_ZN"):
        return name
    at, parts = 3, []
    while at < len(name) and name[at] != "E":
        digits = re.match(r"\d+", name[at:])
        if not digits:
            break
        length = int(digits.group())
        at += len(digits.group())
        parts.append(name[at:at + length])
        at += length
    if parts and re.match(r"h[0-9a-f]{16}$", parts[-1]):
        parts.pop()
    text = "::".join(p[1:] if p.startswith("_$") else p for p in parts).replace("..", "::")
    for escaped, plain in ESCAPES:
        text = text.replace(escaped, plain)
    return text


def read(path):
    data = open(path, "rb").read()
    at, imported, bodies, names, sections = 8, 0, [], {}, {}
    while at < len(data):
        kind = data[at]
        size, at = leb(data, at + 1)
        end = at + size
        if kind == 0:
            length, inner = leb(data, at)
            title = data[inner:inner + length].decode()
            sections[title] = size
            inner += length
            while title == "name" and inner < end:
                sub = data[inner]
                sub_size, inner = leb(data, inner + 1)
                sub_end = inner + sub_size
                if sub == 1:
                    count, inner = leb(data, inner)
                    for _ in range(count):
                        index, inner = leb(data, inner)
                        length, inner = leb(data, inner)
                        names[index] = data[inner:inner + length].decode("utf8", "replace")
                        inner += length
                inner = sub_end
        else:
            sections[SECTIONS.get(kind, str(kind))] = size
            if kind == 2:
                count, inner = leb(data, at)
                for _ in range(count):
                    for _ in range(2):
                        length, inner = leb(data, inner)
                        inner += length
                    if data[inner] != 0:
                        break  # functions are imported first; the rest are not counted
                    _, inner = leb(data, inner + 1)
                    imported += 1
            if kind == 10:
                count, inner = leb(data, at)
                for number in range(count):
                    length, body = leb(data, inner)
                    bodies.append((imported + number, data[inner:body + length]))
                    inner = body + length
        at = end
    return len(data), sections, [(code, demangle(names.get(i, f"func[{i}]"))) for i, code in bodies]


def owner(name):
    for crate in ("fencelab", "fencelab_app"):
        module = re.match(r"[<&\s]*%s::([a-z_]+)" % crate, name)
        if module:
            return f"{crate}::{module.group(1)}"
    first = re.match(r"[<&\s]*(?:dyn |mut |impl )?([A-Za-z_][A-Za-z0-9_]*)", name)
    return first.group(1) if first and "::" in name else "(no path)"


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "target/wasm32-unknown-unknown/wasm-release/fencelab-app.wasm"
    rows = int(sys.argv[2]) if len(sys.argv) > 2 else 30
    total, sections, functions = read(path)
    print(f"{path}: {total} bytes; " + ", ".join(f"{k} {v}" for k, v in sections.items()))
    by_owner = collections.defaultdict(list)
    for code, name in functions:
        by_owner[owner(name)].append(code)
    print("code bytes by crate (`T`/`F`: generic impls such as Leptos views), raw and gzipped on its own:")
    ranked = sorted(by_owner.items(), key=lambda item: -sum(map(len, item[1])))
    for name, bodies in ranked[:rows]:
        joined = b"".join(bodies)
        print(f"  {len(joined):9d} {len(zlib.compress(joined, 9)):9d}  {name}")
    print("largest functions:")
    for size, name in sorted(((len(code), name) for code, name in functions), reverse=True)[:rows]:
        print(f"  {size:9d}  {name[:140]}")


main()
