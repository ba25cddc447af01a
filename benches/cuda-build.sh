#!/usr/bin/env bash
# Builds `loopd --features cuda` on a machine with no GPU and no CUDA install:
# the toolkit comes from NVIDIA's PyPI wheels in a venv under target/, and the
# driver library is replaced at link time by a stub that only names its
# symbols (the real libcuda.so.1 comes with the driver where the binary runs).
#
#   benches/cuda-build.sh              # compute capability 9.0 (H100/H200)
#   CUDA_COMPUTE_CAP=89 benches/cuda-build.sh
#
# Prints the binary's path last. The binary needs, where it runs, the driver
# and the CUDA 13 runtime libraries (libcudart, libcublas, libcublasLt,
# libcurand) on the loader's path; benches/cuda-run.sh runs it on a GPU.
# About 15 minutes on two cores the first time (plus 1.3 GB of wheels).
#
# When it builds, the hash of what it covers (crates/brain, Cargo.lock and
# this script, as committed) goes to benches/cuda-build.passed; commit that,
# and CI (.ci/run) builds again only when they change.
set -euo pipefail
cd "$(dirname "$0")/.."

cap=${CUDA_COMPUTE_CAP:-90}
# What the CUDA build depends on beyond the CPU build, as committed.
covered() { git rev-parse HEAD:crates/brain HEAD:Cargo.lock HEAD:benches/cuda-build.sh; }
if [ "${1:-}" = --covered ]; then covered | sha1sum | cut -d' ' -f1; exit 0; fi
venv=target/cuda-venv
# CUDA 13.0, the version driver 580 runs: PTX from a newer nvcc would not load.
wheels=(nvidia-cuda-nvcc==13.0.88 nvidia-cuda-runtime==13.0.96 nvidia-cublas==13.0.2.14
    nvidia-curand==10.4.0.35 nvidia-cuda-nvrtc==13.0.88 nvidia-cuda-cccl==13.0.85
    nvidia-nvvm==13.0.88 nvidia-cuda-crt==13.0.88)

if ! "$venv/bin/python" -c 'import sys' 2>/dev/null || [ ! -f "$venv/.wheels" ] ||
    [ "$(cat "$venv/.wheels")" != "${wheels[*]}" ]; then
    echo "cuda-build: installing the CUDA 13.0 toolkit wheels into $venv (about 1.3 GB)" >&2
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q --no-deps "${wheels[@]}"
    echo "${wheels[*]}" >"$venv/.wheels"
fi
cu=$("$venv/bin/python" -c 'import nvidia, os; print(os.path.join(nvidia.__path__[0], "cu13"))')

# Link names for the versioned libraries the wheels carry, and a libcuda stub
# where a toolkit keeps its own (lib/stubs).
for lib in "$cu"/lib/lib*.so.*; do
    base=$(basename "$lib")
    ln -sf "$base" "$cu/lib/${base%%.so.*}.so"
done
ln -sfn lib "$cu/lib64" # where nvcc's own link step looks
stubs=$cu/lib/stubs
mkdir -p "$stubs"
cudarc=$(cargo metadata --format-version 1 --locked --features cuda | "$venv/bin/python" -c '
import json, os, sys
for p in json.load(sys.stdin)["packages"]:
    if p["name"] == "cudarc":
        print(os.path.dirname(p["manifest_path"]))')
[ -n "$cudarc" ] || { echo "cuda-build: cudarc is not in the dependency graph" >&2; exit 1; }
grep -ohE '^ +fn cu[A-Za-z0-9_]+\(' "$cudarc/src/driver/sys/mod.rs" |
    sed -E 's/^ +fn ([A-Za-z0-9_]+)\(/void \1(void) {}/' | sort -u >"$stubs/cuda-stub.c"
cc -shared -fPIC -Wl,-soname,libcuda.so.1 -o "$stubs/libcuda.so" "$stubs/cuda-stub.c"

export PATH="$cu/bin:$PATH" CUDA_ROOT="$cu" CUDA_PATH="$cu" CUDA_COMPUTE_CAP="$cap"
export CARGO_TARGET_DIR=target/cuda
# A GPU host's CPU is not this one: build the CPU side for any x86-64-v3.
export RUSTFLAGS="-C target-cpu=${LOOPD_CUDA_TARGET_CPU:-x86-64-v3} -L native=$stubs"
nvcc --version | tail -2 >&2
cargo build --release --locked --features cuda --bin loopd >&2
covered | sha1sum | cut -d' ' -f1 >benches/cuda-build.passed
realpath target/cuda/release/loopd
