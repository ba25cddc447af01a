#!/usr/bin/env bash
# Accuracy per engine × model on the evaluation sets, as one Markdown table.
#
#   benches/accuracy.sh [EVAL_DIR] [LIMIT]
#
# EVAL_DIR holds tools-dev.jsonl, gsm8k-dev.jsonl and game24-dev.jsonl
# (default: ../shared/eval); LIMIT runs only the first N tasks of each set.
# Every run is greedy and constrained; LOOPS_<SET> overrides which loops run
# on a set (e.g. LOOPS_TOOLS=react,none). The JSON of each run is kept in
# target/accuracy/. Slow: hours on a 2-core CPU for the whole grid.
set -euo pipefail
cd "$(dirname "$0")/.."

eval_dir="${1:-../shared/eval}"
limit="${2:-}"
models="${MODELS:-smollm2-135m qwen2.5-coder-0.5b}"
declare -A loops=(
    [tools]="${LOOPS_TOOLS:-react,native-tools,plan-execute,self-ask,critic,none}"
    [gsm8k]="${LOOPS_GSM8K:-chain-of-thought,react,none}"
    [game24]="${LOOPS_GAME24:-tree-of-thoughts,chain-of-thought}"
)
out=target/accuracy
mkdir -p "$out"
cargo build --release --quiet

for model in $models; do
    for set in tools gsm8k game24; do
        args=(bench --model "$model" --tasks "$eval_dir/$set-dev.jsonl" --loops "${loops[$set]}"
              --json "$out/$model-$set.json")
        [ -n "$limit" ] && args+=(--limit "$limit")
        target/release/loopd "${args[@]}" >/dev/null
    done
done

python3 - "$out" $models <<'PY'
import json, sys, pathlib
out, models = pathlib.Path(sys.argv[1]), sys.argv[2:]
print("| model | set | loop | correct | format errors | invalid tool calls | tool-call rate | mean s |")
print("|---|---|---|---|---|---|---|---|")
for model in models:
    for set_ in ["tools", "gsm8k", "game24"]:
        path = out / f"{model}-{set_}.json"
        if not path.exists():
            continue
        doc = json.loads(path.read_text())
        for loop, per_loop in doc["summary"].items():
            s = per_loop.get("cached") or per_loop.get("uncached")
            rate = s["tool_call_rate"]
            print(f"| {model} | {set_} | {loop} | {s['correct']}/{s['graded']} | {s['format_errors']} "
                  f"| {s['invalid_tool_calls']} | {'-' if rate is None else f'{rate:.0%}'} "
                  f"| {s['wall_ms_mean'] / 1000:.1f} |")
PY
