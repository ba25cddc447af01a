#!/usr/bin/env bash
# Accuracy per engine × model on the evaluation sets, as one Markdown table.
#
#   benches/accuracy.sh [EVAL_DIR] [LIMIT]
#
# EVAL_DIR holds tools-dev.jsonl, gsm8k-dev.jsonl and game24-dev.jsonl
# (default: ../shared/eval); the everyday sets are loopd's own:
# benches/eval/everyday-dev.jsonl (every question, react and none) and
# everyday-engines.jsonl (every third, every tool engine). LIMIT runs only
# the first N tasks of each set. A model written `A+B` runs A with B as its
# knowledge model (`--knowledge-model`). Every run is greedy and
# constrained; SETS picks the sets (default: all), LOOPS_<SET> overrides
# which loops run on a set (e.g. LOOPS_TOOLS=react,none). The JSON of each
# run is kept in target/accuracy/. Slow: hours on a 2-core CPU for the
# whole grid.
set -euo pipefail
cd "$(dirname "$0")/.."

eval_dir="${1:-../shared/eval}"
limit="${2:-}"
models="${MODELS:-smollm2-135m qwen2.5-coder-0.5b qwen2.5-coder-0.5b+qwen2.5-coder-1.5b}"
sets="${SETS:-everyday engines tools gsm8k game24}"
declare -A files=(
    [everyday]=benches/eval/everyday-dev.jsonl
    [engines]=benches/eval/everyday-engines.jsonl
    [tools]="$eval_dir/tools-dev.jsonl"
    [gsm8k]="$eval_dir/gsm8k-dev.jsonl"
    [game24]="$eval_dir/game24-dev.jsonl"
)
declare -A loops=(
    [everyday]="${LOOPS_EVERYDAY:-react,none}"
    [engines]="${LOOPS_ENGINES:-react,plan-execute,reflexion,self-ask,critic,hybrid,auto,native-tools}"
    [tools]="${LOOPS_TOOLS:-react,native-tools,plan-execute,self-ask,critic,none}"
    [gsm8k]="${LOOPS_GSM8K:-chain-of-thought,react,none}"
    [game24]="${LOOPS_GAME24:-tree-of-thoughts,chain-of-thought}"
)
out=target/accuracy
mkdir -p "$out"
cargo build --release --quiet

for model in $models; do
    for set in $sets; do
        args=(bench --model "${model%%+*}" --tasks "${files[$set]}" --loops "${loops[$set]}"
              --json "$out/$model-$set.json")
        if [[ $model == *+* ]]; then
            args+=(--knowledge-model "${model#*+}")
        fi
        [ -n "$limit" ] && args+=(--limit "$limit")
        target/release/loopd "${args[@]}" >/dev/null
    done
done

python3 - "$out" $models <<'PY'
import json, sys, pathlib
out, models = pathlib.Path(sys.argv[1]), sys.argv[2:]
print("| model | set | loop | correct | correct and speakable | format errors | invalid tool calls | tool-call rate | mean s | median s |")
print("|---|---|---|---|---|---|---|---|---|---|")
for model in models:
    for set_ in ["everyday", "engines", "tools", "gsm8k", "game24"]:
        path = out / f"{model}-{set_}.json"
        if not path.exists():
            continue
        doc = json.loads(path.read_text())
        for loop, per_loop in doc["summary"].items():
            s = per_loop.get("cached") or per_loop.get("uncached")
            rate = s["tool_call_rate"]
            median = s.get("wall_ms_median")
            print(f"| {model} | {set_} | {loop} | {s['correct']}/{s['graded']} "
                  f"| {s.get('correct_speakable', '-')}/{s['graded']} | {s['format_errors']} "
                  f"| {s['invalid_tool_calls']} | {'-' if rate is None else f'{rate:.0%}'} "
                  f"| {s['wall_ms_mean'] / 1000:.1f} | {'-' if median is None else f'{median / 1000:.1f}'} |")
PY
