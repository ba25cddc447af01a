#!/usr/bin/env bash
# On a machine with an NVIDIA GPU: checks a `--features cuda` build of loopd
# (benches/cuda-build.sh) against llama.cpp's greedy continuations on the GPU,
# measures the bare model's prefill and decode on the GPU and on the CPU, runs
# llama.cpp's CUDA `llama-bench` (benches/llamacpp-cuda-build.sh) on the same
# GGUF, and asks one question end to end on the GPU. With llama.cpp's
# binaries, also prints llama.cpp's own greedy continuation of the golden
# prompts on the GPU and on the CPU, to show how far GPU rounding moves it.
#
#   benches/cuda-run.sh LOOPD MODEL.gguf [LLAMA_BIN_DIR]
#   BASELINE=OLD_LOOPD benches/cuda-run.sh LOOPD MODEL.gguf [LLAMA_BIN_DIR]
#
# With BASELINE (another CUDA build of loopd, say the last commit's), its
# golden check and GPU bench run too, alternating with LOOPD's, so a change
# is measured side by side on one machine.
#
# MODEL must keep its manifest file name (its golden cases are kept by name).
# The CUDA 13 runtime libraries are looked for in the usual places and in an
# installed `nvidia-*` Python package (PyTorch brings them).
set -uo pipefail
cd "$(dirname "$0")/.."
loopd=${1:?usage: cuda-run.sh LOOPD MODEL.gguf [LLAMA_BIN_DIR]}
model=${2:?usage: cuda-run.sh LOOPD MODEL.gguf [LLAMA_BIN_DIR]}
llama=${3:-}
prompt=256 gen=128

libs=()
for py in python3 /opt/torch/.venv/bin/python3; do
    dir=$("$py" -c 'import nvidia, os; print(os.path.join(nvidia.__path__[0], "cu13", "lib"))' 2>/dev/null) &&
        libs+=("$dir") && break
done
for dir in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib; do
    [ -d "$dir" ] && libs+=("$dir")
done
LD_LIBRARY_PATH=$(IFS=:; echo "${libs[*]}")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export LD_LIBRARY_PATH

step() { printf '\n== %s\n' "$*"; }
status=0

step "machine"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
lscpu | grep -m1 'Model name'
"$loopd" --version || status=1
ldd "$loopd" | grep -E 'libcu|nvrtc|not found'

step "golden continuations and bench --raw on the GPU"
"$loopd" bench --raw --device cuda --model "$model" --golden tests/golden/llamacpp.jsonl \
    --prompt-tokens $prompt --gen-tokens $gen --repeat 3 --json - || status=1

if [ -n "${BASELINE:-}" ]; then
    for round in 1 2; do
        for build in "$BASELINE" "$loopd"; do
            step "round $round: bench --raw on the GPU, $build"
            "$build" bench --raw --device cuda --model "$model" --golden tests/golden/llamacpp.jsonl \
                --prompt-tokens $prompt --gen-tokens $gen --repeat 3 --json - || status=1
        done
    done
fi

step "bench --raw on this machine's CPU"
"$loopd" bench --raw --device cpu --model "$model" \
    --prompt-tokens $prompt --gen-tokens $gen --repeat 2 --json - || status=1

if [ -n "$llama" ]; then
    step "llama.cpp's CUDA llama-bench, same GGUF (prefill $prompt, decode $gen at depth $prompt)"
    "$llama/llama-bench" -m "$model" -ngl 99 -fa 0 -p $prompt -n 0 -r 3 -o md || status=1
    "$llama/llama-bench" -m "$model" -ngl 99 -fa 0 -p 0 -n $gen -d $prompt -r 3 -o md || status=1
    step "llama.cpp's greedy continuations of the golden prompts, GPU (ngl 99) then CPU (ngl 0)"
    python3 -c '
import json, sys
for line in open("tests/golden/llamacpp.jsonl"):
    case = json.loads(line)
    if case["kind"] == "greedy" and sys.argv[1] in case["model"]:
        print(case["prompt"].replace("\n", "\\n"))' "$(basename "$model" | tr 'A-Z' 'a-z' | cut -c1-7)" |
        while IFS= read -r golden_prompt; do
            for ngl in 99 0; do
                printf 'ngl %s: ' $ngl
                "$llama/llama-completion" -m "$model" -ngl $ngl -p "$golden_prompt" -n 16 --temp 0 \
                    -no-cnv --no-display-prompt --no-warmup 2>/dev/null | tr '\n' ' '
                echo
            done
        done
fi

step "one question end to end on the GPU"
time "$loopd" ask --device cuda --model "$model" "What is 12 times 12?" || status=1
exit $status
