#!/usr/bin/env bash
# BFCL through the OpenAI endpoint, graded by BFCL's AST checker
# (benches/bfcl.py, the `bfcl-eval` package's data and checker): loopd
# (`serve --http`, client-defined tools, grammar-constrained calls) beside
# llama.cpp's `llama-server --jinja` (built once by tests/peers/llama-server.sh)
# on the same GGUF, at temperature 0; loopd through both the `openai` and
# the `ollama` clients. Prints one table row per category.
#
#   benches/bfcl.sh [MODEL] [LIMIT] [CATEGORY...]
#   (defaults: qwen2.5-coder-0.5b, 50 per category,
#    simple_python multiple parallel irrelevance; LIMIT 0: all of each)
#   PEERS=0 leaves out the ollama client and llama-server (loopd through
#   the openai client alone, for the full sets).
set -euo pipefail
cd "$(dirname "$0")/.."
model="${1:-qwen2.5-coder-0.5b}"
limit="${2:-50}"
[ "$limit" = 0 ] && limit=100000
peers="${PEERS:-1}"
shift 2 2>/dev/null || shift $#
categories=("$@")
[ ${#categories[@]} -eq 0 ] && categories=(simple_python multiple parallel irrelevance)

venv=target/bfcl-venv
if ! "$venv/bin/python" -c "import bfcl_eval, openai, ollama" 2>/dev/null; then
    python3 -m venv "$venv"
    # The data and the checker only: the package's own dependencies are the
    # SDKs of every vendor it benchmarks.
    "$venv/bin/pip" install -q --no-deps "bfcl-eval==2026.3.23"
    "$venv/bin/pip" install -q --no-warn-conflicts "openai>=1.50,<4" "ollama>=0.5,<1"
fi
loopd=target/release/loopd
[ -x "$loopd" ] || cargo build --release
gguf="$(models/fetch "$model" | tail -1)"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
out="$(mktemp -d)"
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; rm -rf "$out"' EXIT

loopd_port=$(free_port)
printf '' >"$out/config.toml"
"$loopd" serve --model "$model" --knowledge-model none --config "$out/config.toml" \
    --no-dbus --no-bus --http "127.0.0.1:$loopd_port" >"$out/loopd.log" 2>&1 &
pids+=($!)
until curl -sf "http://127.0.0.1:$loopd_port/v1/models" >/dev/null; do sleep 0.5; done
"$venv/bin/python" benches/bfcl.py openai "http://127.0.0.1:$loopd_port/v1" default "$limit" \
    "${categories[@]}" >"$out/loopd.json"
if [ "$peers" = 0 ]; then
    "$venv/bin/python" - "$out/loopd.json" "$model" <<'PY'
import json, sys
loopd = json.load(open(sys.argv[1]))
print(f"BFCL on {sys.argv[2]}, loopd through the openai client (AST accuracy; malformed "
      "calls; median s per question; median ms beyond the model's own time, at the client "
      "and in the server)")
for category, r in loopd.items():
    print(f"| {category} | {r['right']}/{r['of']} = {r['accuracy']:.1%}; {r['malformed']}; "
          f"{r['median_s']} s; {r['overhead_ms']} ms; server {r['server_overhead_ms']} ms |")
PY
    exit 0
fi
"$venv/bin/python" benches/bfcl.py ollama "http://127.0.0.1:$loopd_port" default "$limit" \
    "${categories[@]}" >"$out/loopd-ollama.json"
kill "${pids[0]}"

server="$(bash tests/peers/llama-server.sh)"
peer_port=$(free_port)
"$server" -m "$gguf" --jinja --host 127.0.0.1 --port "$peer_port" -t "$(nproc)" -c 8192 \
    --no-webui >"$out/server.log" 2>&1 &
pids+=($!)
until curl -sf "http://127.0.0.1:$peer_port/health" >/dev/null; do sleep 0.5; done
"$venv/bin/python" benches/bfcl.py openai "http://127.0.0.1:$peer_port/v1" "$model" "$limit" \
    "${categories[@]}" >"$out/peer.json"

python3 - "$out/loopd.json" "$out/loopd-ollama.json" "$out/peer.json" "$model" <<'PY'
import json, sys
loopd, ollama, peer = (json.load(open(p)) for p in sys.argv[1:4])
print(f"BFCL on {sys.argv[4]} (AST accuracy; malformed calls; median s per question; "
      "median ms beyond the model's own time)")
print("| category | loopd, openai client | loopd, ollama client | llama-server --jinja |")
print("|---|---|---|---|")
def cell(r):
    server = r.get("server_overhead_ms")
    return (f"{r['right']}/{r['of']} = {r['accuracy']:.0%}; {r['malformed']}; "
            f"{r['median_s']} s; {r['overhead_ms']} ms"
            + (f" (server {server} ms)" if server is not None else ""))
for category in loopd:
    print(f"| {category} | {cell(loopd[category])} | {cell(ollama[category])} | "
          f"{cell(peer[category])} |")
PY
