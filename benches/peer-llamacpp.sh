#!/usr/bin/env bash
# loopd against llama.cpp on the same GGUF files: prefill and decode speed,
# same prompt ids, same threads, alternating runs; medians and ratios as a
# Markdown table.
#
#   benches/peer-llamacpp.sh [MODEL ...]     (default: every model in models/models.toml)
#
# llama.cpp is node-llama-cpp 3.22.1's prebuilt CPU backend, installed from
# npm into target/peer-llamacpp once. Environment: THREADS (default: loopd's
# own choice, passed to loopd as RAYON_NUM_THREADS), PROMPT (256), GEN (128), RUNS (3 alternating runs each).
set -euo pipefail
cd "$(dirname "$0")/.."

prompt="${PROMPT:-256}"
gen="${GEN:-128}"
runs="${RUNS:-3}"
peer=target/peer-llamacpp
if [ ! -d "$peer/node_modules/node-llama-cpp" ]; then
    mkdir -p "$peer"
    npm install --prefix "$peer" --no-audit --no-fund --silent node-llama-cpp@3.22.1
fi
cp benches/peer-llamacpp.mjs "$peer/"
cargo build --release --quiet
loopd=target/release/loopd

if [ $# -eq 0 ]; then
    set -- $(python3 -c 'import tomllib; print(*(m["name"] for m in tomllib.load(open("models/models.toml", "rb"))["model"]))')
fi
threads="${THREADS:-$("$loopd" bench --raw --model "$1" --prompt-tokens 8 --gen-tokens 1 --repeat 1 --json - | python3 -c 'import json,sys; print(json.load(sys.stdin)["threads"])')}"

echo "| model | prefill tok/s loopd / llama.cpp | ratio | decode tok/s loopd / llama.cpp | ratio |"
echo "|---|---|---|---|---|"
for model in "$@"; do
    file=$(models/fetch "$model" | tail -1)
    results=$(mktemp)
    for _ in $(seq "$runs"); do
        RAYON_NUM_THREADS="$threads" "$loopd" bench --raw --model "$file" \
            --prompt-tokens "$prompt" --gen-tokens "$gen" --repeat 1 --json - \
            | sed 's/^/loopd /' >> "$results"
        node "$peer/peer-llamacpp.mjs" "$file" "$prompt" "$gen" "$threads" 1 \
            | sed 's/^/llama /' >> "$results"
    done
    python3 - "$model" "$results" <<'PY'
import json, statistics, sys
model, path = sys.argv[1], sys.argv[2]
runs = {"loopd": [], "llama": []}
for line in open(path):
    who, doc = line.split(" ", 1)
    runs[who].append(json.loads(doc))
def median(who, key):
    return statistics.median(r[key] for r in runs[who])
cells = []
for key in ["prefill_tok_s", "decode_tok_s"]:
    ours, theirs = median("loopd", key), median("llama", key)
    cells += [f"{ours:.1f} / {theirs:.1f}", f"**{ours / theirs:.2f}×**"]
print(f"| {model} | " + " | ".join(cells) + " |")
PY
    rm -f "$results"
done
echo
echo "($threads threads, $prompt-token prompt, $gen generated tokens, medians of $runs alternating runs)"
