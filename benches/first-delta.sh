#!/usr/bin/env bash
# Time to the first answer text of one question, asked of one `loopd serve`
# two ways, alternating: D-Bus `Ask` (the first `Token` signal on the answer
# channel, through jeepney) and the OpenAI API on `--http` (the first
# content delta, through the official `openai` client). Each ask is a new
# conversation. Prints the medians.
#
#   benches/first-delta.sh [ROUNDS] [QUESTION]   (default: 5, "What is 12 times 12?")
#
# Needs dbus-daemon and the test venv (target/ovos-venv: jeepney, openai).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${1:-5}"
question="${2:-What is 12 times 12?}"
python="${LOOPD_OVOS_VENV:-target/ovos-venv}/bin/python"
cargo build --release --quiet
loopd=$PWD/target/release/loopd
dir=$(mktemp -d)
cleanup() {
    kill $(jobs -p) 2>/dev/null || true
    wait 2>/dev/null || true
    rm -rf "$dir"
}
trap cleanup EXIT

dbus-daemon --session --nofork --print-address=1 >"$dir/address" 2>/dev/null &
while [ ! -s "$dir/address" ]; do sleep 0.05; done
address=$(head -1 "$dir/address")
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
DBUS_SESSION_BUS_ADDRESS=$address XDG_CONFIG_HOME=$dir "$loopd" serve --no-bus \
    --http "127.0.0.1:$port" 2>"$dir/serve.log" &
until grep -q "ready in" "$dir/serve.log"; do sleep 0.2; done

"$python" - "$address" "http://127.0.0.1:$port/v1" "$rounds" "$question" <<'PY'
import statistics, sys, time
import openai
from jeepney import DBusAddress, MatchRule, MessageType, message_bus, new_method_call
from jeepney.io.blocking import open_dbus_connection

address, url, rounds, question = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
conn = open_dbus_connection(bus=address)
rule = MatchRule(type="signal", interface="io.loopd.Loopd1.Request")
conn.send_and_get_reply(message_bus.AddMatch(rule))
loopd = DBusAddress("/io/loopd/Loopd1", bus_name="io.loopd.Loopd1", interface="io.loopd.Loopd1")
client = openai.OpenAI(base_url=url, api_key="none", max_retries=0)

def dbus(n):
    started = time.monotonic()
    conn.send(new_method_call(loopd, "Ask", "sa{sv}", (question, {"session": ("s", f"d{n}")})))
    first = None
    while True:
        msg = conn.receive(timeout=300)
        if msg.header.message_type != MessageType.signal:
            continue
        member = msg.header.fields.get(3)
        if member == "Token" and msg.body[0] == "answer" and first is None:
            first = (time.monotonic() - started) * 1000
        if member in ("Finished", "Failed"):
            return first, msg.body[0] if member == "Finished" else msg.body

def http(n):
    started = time.monotonic()
    first, text = None, ""
    for chunk in client.chat.completions.create(
            model="default", messages=[{"role": "user", "content": question}],
            stream=True, user=f"h{n}"):
        if chunk.choices and chunk.choices[0].delta.content:
            first = first or (time.monotonic() - started) * 1000
            text += chunk.choices[0].delta.content
    return first, text

times = {"D-Bus Ask": [], "OpenAI stream": []}
for n in range(rounds):
    for name, ask in (("D-Bus Ask", dbus), ("OpenAI stream", http)):
        first, answer = ask(n)
        times[name].append(first)
        print(f"{name:<14} round {n + 1}: first answer text at {first:.0f} ms ({answer!r})")
print("| front end | rounds | median first answer text ms |")
print("|---|---|---|")
for name, ms in times.items():
    print(f"| {name} | {len(ms)} | {statistics.median(ms):.0f} |")
PY
