#!/usr/bin/env bash
# loopd's transformer against candle-transformers' models (tests/reference):
# the f32 logits of both on the real models. Not part of the README's
# `cargo test` (building candle-transformers costs about 80 s of two cores).
#
#   tests/reference/check.sh             (bounded by TIMEOUT seconds, default 1200)
#   tests/reference/check.sh --covered   (prints the hash of what it covers)
#
# When it passes, the hash of what it covers (loopd's model code and GGUF
# reader, this crate, candle's versions in Cargo.lock) is written to
# tests/reference.passed; commit it, and CI (.ci/run) runs this again only
# when that code changes.
set -euo pipefail
cd "$(dirname "$0")/../.."

covered() {
    git rev-parse HEAD:crates/brain/src/model HEAD:crates/brain/src/gguf.rs HEAD:tests/reference
    grep -A1 '^name = "candle-' Cargo.lock
}
if [ "${1:-}" = --covered ]; then covered | sha1sum | cut -d' ' -f1; exit 0; fi

echo "== reference: loopd's transformer against candle-transformers, in f32"
timeout "${TIMEOUT:-1200}" cargo test --release -p loopd-reference
covered | sha1sum | cut -d' ' -f1 >tests/reference.passed
echo "== reference: passed; tests/reference.passed updated (commit it)"
