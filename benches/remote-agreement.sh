#!/usr/bin/env bash
# Every loop on the same GGUF twice, at temperature 0: on loopd's own local
# brain, and as a remote brain on llama.cpp's llama-server (built once by
# tests/peers/llama-server.sh). Prints, per loop, how often the two answers
# agree, and what the remote path adds to each LLM call on loopback (the
# call's wall time minus the server's own prompt and generation time).
# Grammars are not sent to llama-server, so the local runs go unconstrained
# too (`--set constrain=false`): the comparison is brain against brain.
#
#   benches/remote-agreement.sh [MODEL] [LOOPS] [TASKS]
#   (defaults: qwen2.5-coder-0.5b, all, the built-in tasks)
set -euo pipefail
cd "$(dirname "$0")/.."
model="${1:-qwen2.5-coder-0.5b}"
loops="${2:-all}"
tasks=()
[ -n "${3:-}" ] && tasks=(--tasks "$3")
loopd=target/release/loopd
[ -x "$loopd" ] || cargo build --release
server="$(bash tests/peers/llama-server.sh)"
gguf="$(models/fetch "$model" | tail -1)"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
out="$(mktemp -d)"
"$server" -m "$gguf" --host 127.0.0.1 --port "$port" -t "$(nproc)" -c 8192 --no-webui \
    >"$out/server.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; rm -rf "$out"' EXIT
until curl -sf "http://127.0.0.1:$port/health" >/dev/null; do sleep 0.5; done

"$loopd" bench --brain "http://127.0.0.1:$port" --loops "$loops" "${tasks[@]}" \
    --json "$out/remote.json" >/dev/null
kill $pid
"$loopd" bench --model "$model" --loops "$loops" "${tasks[@]}" --set constrain=false \
    --json "$out/local.json" >/dev/null

python3 - "$out/local.json" "$out/remote.json" <<'PY'
import json, sys, statistics
local, remote = (json.load(open(p)) for p in sys.argv[1:3])
key = lambda r: (r["loop"], r["task"], r["follow_up"])
answers = {key(r): r["answer"].strip() for r in local["runs"]}
per_loop, overhead = {}, []
for run in remote["runs"]:
    same = answers.get(key(run)) == run["answer"].strip()
    agree, total = per_loop.get(run["loop"], (0, 0))
    per_loop[run["loop"]] = (agree + same, total + 1)
    for call in run["stats"]["calls"]:
        overhead.append(call["wall_ms"] - call["prefill_ms"] - call["decode_ms"])
print(f"{'loop':<18} agree")
for loop, (agree, total) in per_loop.items():
    print(f"{loop:<18} {agree}/{total}")
agree = sum(a for a, _ in per_loop.values()); total = sum(t for _, t in per_loop.values())
print(f"{'all':<18} {agree}/{total} = {agree / total:.0%}")
print(f"remote path per call (wall - server prompt - server generation), {len(overhead)} calls: "
      f"median {statistics.median(overhead):.1f} ms, p90 {sorted(overhead)[int(0.9 * len(overhead))]:.1f} ms")
PY
