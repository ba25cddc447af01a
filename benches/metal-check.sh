#!/usr/bin/env bash
# Type-checks the crates with a `metal` feature (loopd-brain, loopd-voice)
# for Apple silicon with Metal on, from Linux: candle's Metal backend, its
# kernels' crate and the objc2 Metal bindings are compiled as far as
# `cargo check` goes. Nothing is linked or run (that needs macOS), and the
# top crate is left out: ring (TLS for `models pull`) and cpal's CoreAudio
# bindings compile C against the macOS SDK.
#
#   benches/metal-check.sh        (about 4 minutes on two cores the first time)
#
# Needs the aarch64-apple-darwin standard library (`rustup target add
# aarch64-apple-darwin`, which this script runs). When it passes, the hash
# of what it covers (crates/brain, crates/voice, Cargo.lock and this script,
# as committed) goes to benches/metal-check.passed; commit that, and CI
# (.ci/run) checks again only when they change.
set -euo pipefail
cd "$(dirname "$0")/.."

covered() { git rev-parse HEAD:crates/brain HEAD:crates/voice HEAD:Cargo.lock HEAD:benches/metal-check.sh; }
if [ "${1:-}" = --covered ]; then covered | sha1sum | cut -d' ' -f1; exit 0; fi

target=aarch64-apple-darwin
if ! rustup target list --installed | grep -qx "$target"; then
    rustup target add "$target"
fi
# .cargo/config.toml's target-cpu=native names this machine's CPU, not an
# Apple one: no flags for the check.
RUSTFLAGS="" cargo check --release --locked --target "$target" \
    --target-dir target/metal-check \
    -p loopd-brain -p loopd-voice --no-default-features \
    --features loopd-brain/metal,loopd-voice/metal
covered | sha1sum | cut -d' ' -f1 >benches/metal-check.passed
echo "metal-check: loopd-brain and loopd-voice check for $target with Metal"
