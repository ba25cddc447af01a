#!/usr/bin/env bash
# The Raspberry Pi's code paths, run on this machine under qemu-user: the
# quantized-kernel tests on an emulated CPU with `sdot` (Cortex-A76-like,
# Pi 5) and one without (Cortex-A72, Pi 4), then llama.cpp's greedy
# continuations of both reference models (the golden test). Emulated
# timings mean nothing; correctness does.
#
#   benches/aarch64.sh            (bounded by TIMEOUT seconds a step, default 1800)
#
# When every step passes, the tree of crates/brain/src/model it passed on is
# written to benches/aarch64.passed; commit it, and CI (.ci/run) runs this
# again only when that code changes.
# Needs the rustup target aarch64-unknown-linux-gnu and the Debian packages
# gcc-aarch64-linux-gnu, libc6-dev-arm64-cross and qemu-user; the models
# from `models/fetch`.
set -euo pipefail
cd "$(dirname "$0")/.."

target=aarch64-unknown-linux-gnu
bound="${TIMEOUT:-1800}"
for tool in aarch64-linux-gnu-gcc qemu-aarch64; do
    command -v "$tool" >/dev/null || {
        echo "aarch64.sh: $tool is missing (apt-get install gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user)" >&2
        exit 1
    }
done
rustup target list --installed | grep -qx "$target" || rustup target add "$target"

export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER="qemu-aarch64 -L /usr/aarch64-linux-gnu"
# The baseline aarch64 CPU (NEON); `sdot` is chosen at run time. Without this
# the host's target-cpu=native from .cargo/config.toml would apply.
export RUSTFLAGS=""
args=(--release --target "$target" --no-default-features)

for cpu in max cortex-a72; do
    echo "== kernel tests, emulated CPU: $cpu"
    QEMU_CPU="$cpu" timeout "$bound" cargo test "${args[@]}" -p loopd-brain --lib quant:: -- --nocapture 2>&1 \
        | grep -E "kernels on this CPU|^test |test result|panicked|^error|against"
done
echo "== greedy continuations of both reference models against llama.cpp's"
QEMU_CPU=max timeout "$bound" cargo test "${args[@]}" -p loopd --test it \
    generation::greedy_continuations_match_llama_cpp 2>&1 | grep -E "^test |test result|panicked|^error| apart"
if git diff --quiet HEAD -- crates/brain/src/model; then
    git rev-parse HEAD:crates/brain/src/model > benches/aarch64.passed
    echo "== passed on crates/brain/src/model $(cat benches/aarch64.passed) (benches/aarch64.passed)"
fi
