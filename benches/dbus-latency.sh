#!/usr/bin/env bash
# How fast loopd's D-Bus interface answers while the model computes: the
# time `busctl get-property … State` takes against `loopd serve`, idle and
# while a long prompt (about 2,000 tokens) is being prefilled, side by side
# (busctl's own start-up is in both).
#
#   benches/dbus-latency.sh [MODEL]     (default: the manifest's default model)
#
# Needs dbus-daemon and busctl (Debian `dbus`, `systemd`).
set -euo pipefail
cd "$(dirname "$0")/.."
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
DBUS_SESSION_BUS_ADDRESS=$address "$loopd" serve --no-bus ${1:+--model "$1"} 2>"$dir/serve.log" &
bus=(busctl --address="$address")
property=(get-property io.loopd.Loopd1 /io/loopd/Loopd1 io.loopd.Loopd1 State)
for _ in $(seq 600); do
    "${bus[@]}" "${property[@]}" 2>/dev/null | grep -q ready && break
    sleep 0.1
done
"${bus[@]}" "${property[@]}" | grep -q ready || { cat "$dir/serve.log" >&2; exit 1; }

# Milliseconds each of N property reads takes, one line each.
probe() {
    for _ in $(seq "$1"); do
        local start end
        start=$(date +%s%N)
        "${bus[@]}" "${property[@]}" >/dev/null
        end=$(date +%s%N)
        echo "$(( (end - start) / 1000 ))"
        sleep 0.02
    done
}

probe 40 >"$dir/idle"
prompt="Summarize this text: $(for i in $(seq 400); do printf 'the quick brown fox %d ' "$i"; done)"
"${bus[@]}" --timeout=600 call io.loopd.Loopd1 /io/loopd/Loopd1 io.loopd.Loopd1 AskSync \
    'sa{sv}' "$prompt" 2 loop s none max_tokens u 1 >/dev/null &
asking=$!
sleep 0.3
probe 40 >"$dir/busy"
state=$("${bus[@]}" "${property[@]}")
wait "$asking"

python3 - "$dir/idle" "$dir/busy" "$state" <<'PY'
import statistics, sys
idle, busy = ([int(l) / 1000 for l in open(p)] for p in sys.argv[1:3])
print("| daemon | reads | median ms | max ms |")
print("|---|---|---|---|")
for name, ms in [("idle", idle), ("prefilling a long prompt", busy)]:
    print(f"| {name} | {len(ms)} | {statistics.median(ms):.1f} | {max(ms):.1f} |")
print(f"\n(the state after the busy reads: {sys.argv[3].strip()})")
PY
