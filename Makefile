# fencelab: `make serve` to use the app, `make test` to check everything.
SHELL := bash
.SHELLFLAGS := -euo pipefail -c
# trunk finds wasm-opt (binaryen) in node_modules/.bin; cargo-installed tools in ~/.cargo/bin.
export PATH := $(CURDIR)/node_modules/.bin:$(HOME)/.cargo/bin:$(PATH)

HOST ?= 127.0.0.1
PORT ?= 8080

.PHONY: install fetch build serve test test-native test-lessons test-e2e bundle-size load-timing

install:
	@bash scripts/install.sh

# The release wasm is built with the standard library rebuilt for it, a panic as a bare
# trap (no message, no formatting code): 24 KB gzipped less in the first load, and `Debug`
# formatting that prints nothing: 3.4 KB less
# (benches/results/2026-11-25-loading-rounds.md, eighth and eleventh rounds;
# tests/wasm_text.rs keeps `{:?}` out of the texts the browser shows). All are unstable
# cargo and rustc features, which RUSTC_BOOTSTRAP enables on this stable toolchain; debug
# builds and native builds keep panic messages and `Debug`. Cargo appends the wasm target's
# flags given here to .cargo/config.toml's.
RELEASE_WASM := RUSTC_BOOTSTRAP=1 CARGO_UNSTABLE_BUILD_STD=std,panic_abort \
	CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="-Zunstable-options -Cpanic=immediate-abort -Zfmt-debug=none"

# Trunk.toml builds offline, so fetch crates first (a no-op when they are cached), the
# standard library's own dependencies included.
fetch:
	cargo fetch --locked
	$(RELEASE_WASM) cargo fetch --locked --target wasm32-unknown-unknown

build: install fetch
	$(RELEASE_WASM) trunk build --release

# trunk serve injects a live-reload script into what it writes, so it writes to its own
# directory: dist/ stays the release build that `make build` and the e2e tests use.
SERVE_DIST := target/serve

serve: install fetch
	@echo "fencelab: open http://$(HOST):$(PORT)/ (Ctrl-C stops)"
	$(RELEASE_WASM) trunk serve --release --dist $(SERVE_DIST) --address $(HOST) --port $(PORT)

test: install test-native test-lessons build test-e2e

test-native:
	cargo test --workspace
	# The fix search over every bug/twin pair, the 3x3 pipelines and the check that
	# forgetting writes changes no report take minutes in a debug build (ignored there).
	cargo test --release --test fix_twins --test big_pipelines
	cargo test --release --lib explore::

# Runs once lessons exist and the CLI knows `lessons check`.
test-lessons:
	@if ls lessons/*.md >/dev/null 2>&1; then cargo run -q -- lessons check lessons; else echo "no lessons yet: skipping lessons check"; fi

test-e2e:
	node --test e2e/

bundle-size:
	@bash scripts/bundle-size.sh

# Navigation → first verdict on screen, 5 cold loads (needs a release dist/).
load-timing:
	node e2e/load-timing.mjs 5
