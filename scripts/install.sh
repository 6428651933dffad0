#!/usr/bin/env bash
# Installs what building and testing fencelab needs, on a fresh Debian machine.
# Every step checks first and is skipped quickly when its tool is already there.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

TRUNK_VERSION=0.21.14
WASM_BINDGEN_VERSION=0.2.130   # must equal the crate pinned in components/Cargo.toml
# Must read the split sections of the wasm_split_helpers that Leptos links (Cargo.lock).
WASM_SPLIT_VERSION=0.2.4

step() { printf '==> install: %s\n' "$*"; }

as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

apt_updated=no
apt_install() {
    if [ "$apt_updated" = no ]; then
        as_root apt-get update
        apt_updated=yes
    fi
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y "$@"
}

if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
    step "rust target wasm32-unknown-unknown"
    rustup target add wasm32-unknown-unknown
fi

# The release wasm rebuilds the standard library from its source (Makefile, RELEASE_WASM).
if ! rustup component list --installed 2>/dev/null | grep -qx rust-src; then
    step "rust component rust-src"
    rustup component add rust-src
fi

if ! trunk --version 2>/dev/null | grep -qF "$TRUNK_VERSION"; then
    step "trunk $TRUNK_VERSION (compiles from source, about 10 minutes)"
    cargo install --locked trunk --version "$TRUNK_VERSION"
fi

if ! wasm-bindgen --version 2>/dev/null | grep -qF "$WASM_BINDGEN_VERSION"; then
    step "wasm-bindgen-cli $WASM_BINDGEN_VERSION"
    # Not --locked: one of its locked dependencies is no longer on the registry.
    cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION"
fi

# Cuts the app's wasm into the first load and its lazy panels' chunks (scripts/split-app-wasm.sh).
# It prints no version, so cargo's list of installed crates says which one is there.
if ! cargo install --list 2>/dev/null | grep -qxF "wasm_split_cli_support v$WASM_SPLIT_VERSION:"; then
    step "wasm-split-cli $WASM_SPLIT_VERSION"
    cargo install --locked wasm_split_cli_support --version "$WASM_SPLIT_VERSION" --features build-binary
fi

if [ ! -x /usr/bin/chromium ]; then
    step "chromium (browser tests)"
    apt_install chromium chromium-driver
fi

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    step "node and npm"
    apt_install nodejs npm
fi

# Dev dependencies: playwright-core (drives the system chromium; never download browsers)
# and binaryen's wasm-opt, which trunk finds on PATH via node_modules/.bin.
if [ ! -x node_modules/.bin/wasm-opt ] || [ ! -d node_modules/playwright-core ]; then
    step "npm dev dependencies"
    if [ -f package-lock.json ]; then npm ci --no-audit --no-fund; else npm install --no-audit --no-fund; fi
fi
