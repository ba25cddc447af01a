#!/usr/bin/env bash
# The remote brain against llama.cpp's `llama-server` (tests/it/remote.rs):
# builds the server once (tests/peers/llama-server.sh, 10-15 minutes on two
# cores, cached under target/), then runs those tests, which plain
# `cargo test` lists as ignored for want of it.
#
#   tests/peers/remote.sh             (each step bounded by TIMEOUT seconds, default 1800)
#   tests/peers/remote.sh --covered   (prints the hash of what these tests cover)
#
# When they pass, the hash of the code they cover (the brain crate, the CLI's
# and the personas' remote-brain options, the config, these tests, the
# peer's build script, Cargo.lock) is written to tests/peers/remote.passed;
# commit it, and CI (.ci/run) runs this again only when that code changes.
set -euo pipefail
cd "$(dirname "$0")/../.."

covered() {
    git rev-parse HEAD:crates/brain HEAD:src/cli/brain.rs HEAD:src/cli/ask.rs \
        HEAD:src/persona HEAD:src/daemon/config.rs HEAD:tests/it/remote.rs \
        HEAD:tests/peers/llama-server.sh HEAD:tests/peers/remote.sh HEAD:Cargo.lock
}
if [ "${1:-}" = --covered ]; then covered | sha1sum | cut -d' ' -f1; exit 0; fi

bound="${TIMEOUT:-1800}"
echo "== remote: building llama.cpp's llama-server (cached under target/peer-llama-server)"
timeout "$bound" bash tests/peers/llama-server.sh >/dev/null
echo "== remote: the remote-brain tests against it"
timeout "$bound" cargo test --release --test it -- --ignored remote::
covered | sha1sum | cut -d' ' -f1 >tests/peers/remote.passed
echo "== remote: passed; tests/peers/remote.passed updated (commit it)"
