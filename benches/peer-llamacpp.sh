#!/usr/bin/env bash
# loopd against llama.cpp on the same GGUF files: prefill and decode speed,
# same prompt ids, same threads, alternating runs; medians and ratios as a
# Markdown table.
#
#   benches/peer-llamacpp.sh [MODEL ...]     (default: every model in models/models.toml)
#
# The peer is llama.cpp b11434's own `llama-bench`, built from source for this
# CPU (GGML_NATIVE) and cached under target/peer-llama-server/ by
# tests/peers/llama-server.sh: prefill of PROMPT tokens, and GEN tokens
# decoded at depth PROMPT, as loopd's `bench --raw` does. With PREBUILT=1,
# node-llama-cpp 3.22.1's prebuilt CPU backend (from npm, into
# target/peer-llamacpp) is a second column. Environment: THREADS (default:
# loopd's own choice, passed to loopd as RAYON_NUM_THREADS), PROMPT (256),
# GEN (128), RUNS (3 alternating runs each), PREBUILT (0).
set -euo pipefail
cd "$(dirname "$0")/.."

prompt="${PROMPT:-256}"
gen="${GEN:-128}"
runs="${RUNS:-3}"
prebuilt="${PREBUILT:-0}"
llama_bench=$(tests/peers/llama-server.sh llama-bench)
peer=target/peer-llamacpp
if [ "$prebuilt" = 1 ]; then
    if [ ! -d "$peer/node_modules/node-llama-cpp" ]; then
        mkdir -p "$peer"
        npm install --prefix "$peer" --no-audit --no-fund --silent node-llama-cpp@3.22.1
    fi
    cp benches/peer-llamacpp.mjs "$peer/"
fi
cargo build --release --quiet
loopd=target/release/loopd

if [ $# -eq 0 ]; then
    set -- $(python3 -c 'import tomllib; print(*(m["name"] for m in tomllib.load(open("models/models.toml", "rb"))["model"]))')
fi
threads="${THREADS:-$("$loopd" bench --raw --model "$1" --prompt-tokens 8 --gen-tokens 1 --repeat 1 --json - | python3 -c 'import json,sys; print(json.load(sys.stdin)["threads"])')}"

if [ "$prebuilt" = 1 ]; then
    echo "| model | prefill tok/s loopd / llama.cpp | ratio | decode tok/s loopd / llama.cpp | ratio | prebuilt prefill / decode |"
    echo "|---|---|---|---|---|---|"
else
    echo "| model | prefill tok/s loopd / llama.cpp | ratio | decode tok/s loopd / llama.cpp | ratio |"
    echo "|---|---|---|---|---|"
fi
for model in "$@"; do
    file=$(models/fetch "$model" | tail -1)
    results=$(mktemp)
    for _ in $(seq "$runs"); do
        RAYON_NUM_THREADS="$threads" "$loopd" bench --raw --model "$file" \
            --prompt-tokens "$prompt" --gen-tokens "$gen" --repeat 1 --json - \
            | sed 's/^/loopd /' >> "$results"
        {
            "$llama_bench" -m "$file" -t "$threads" -p "$prompt" -n 0 -r 1 -o jsonl
            "$llama_bench" -m "$file" -t "$threads" -p 0 -n "$gen" -d "$prompt" -r 1 -o jsonl
        } | python3 -c '
import json, sys
tests = [json.loads(l) for l in sys.stdin if l.strip()]
print(json.dumps({"prefill_tok_s": tests[0]["avg_ts"], "decode_tok_s": tests[1]["avg_ts"]}))' \
            | sed 's/^/llama /' >> "$results"
        if [ "$prebuilt" = 1 ]; then
            node "$peer/peer-llamacpp.mjs" "$file" "$prompt" "$gen" "$threads" 1 \
                | sed 's/^/prebuilt /' >> "$results"
        fi
    done
    python3 - "$model" "$results" <<'PY'
import json, statistics, sys
model, path = sys.argv[1], sys.argv[2]
runs = {"loopd": [], "llama": [], "prebuilt": []}
for line in open(path):
    who, doc = line.split(" ", 1)
    runs[who].append(json.loads(doc))
def median(who, key):
    return statistics.median(r[key] for r in runs[who])
cells = []
for key in ["prefill_tok_s", "decode_tok_s"]:
    ours, theirs = median("loopd", key), median("llama", key)
    cells += [f"{ours:.1f} / {theirs:.1f}", f"**{ours / theirs:.2f}×**"]
if runs["prebuilt"]:
    cells.append(f"{median('prebuilt', 'prefill_tok_s'):.1f} / {median('prebuilt', 'decode_tok_s'):.1f}")
print(f"| {model} | " + " | ".join(cells) + " |")
PY
    rm -f "$results"
done
echo
echo "($threads threads, $prompt-token prompt, $gen tokens decoded at depth $prompt, medians of $runs alternating runs; llama.cpp b11434 built here for this CPU)"
