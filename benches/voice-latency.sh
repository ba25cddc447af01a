#!/usr/bin/env bash
# Where a spoken answer's time goes, from the end of the user's speech: turn
# detection (the endpointer's wait), the transcript (turn detection plus
# Whisper), Whisper's own time, the first answer token and the first audio
# sample. Each question
# is spoken by espeak-ng (`en-us`) and by the Piper voice (`piper-joe`), and
# heard by `loopd listen --input Q.wav --json --once` at its recorded pace;
# questions marked with " / " are spoken with a 700 ms pause there, to count
# early cut-offs (an answer to half a question). Prints p50/p90 of each stage,
# how much of the work began before the turn ended (Whisper's hints, the
# prompt computed from the words heard so far, the question asked in the
# pause) and the raw JSON lines' path.
#
#   [TURN=smart-turn] [LOOPD=BINARY] benches/voice-latency.sh [VOICE ...]
#                                  (default: en-us piper-joe; TURN=silence)
#
# TURN picks how the end of a question is found (`listen --turn`): a fixed
# silence, or the Smart Turn model (`models/fetch smart-turn`).
# Needs espeak-ng, the default model and speech model, and `models/fetch
# piper-joe` for the Piper voice.
set -euo pipefail
cd "$(dirname "$0")/.."
# LOOPD=path/to/loopd: another build (an older commit's, for a side-by-side
# run on the same machine in the same hour).
if [ -z "${LOOPD:-}" ]; then
    cargo build --release --quiet
fi
loopd=${LOOPD:-$PWD/target/release/loopd}
[ $# -gt 0 ] || set -- en-us piper-joe
turn=${TURN:-silence}
vad=${VAD:-earshot}
# EARLY=0: transcribe and answer only once the turn has ended (--no-early).
early=()
[ "${EARLY:-1}" = 0 ] && early=(--no-early)
out=$(mktemp -d)
echo "voice-latency: speech heard by $vad, turn end by $turn${early[*]:+, $early}; WAVs and results in $out" >&2

# kind|question (" / " marks a pause)
questions='plain|What is the capital of France?
plain|How many legs does a spider have?
plain|Why is the sky blue?
tool|What is seventeen times twenty three?
tool|What time is it in Tokyo?
tool|What is fifteen percent of eighty?
tool|How many days are there until Christmas?
tool|Set a timer for ten minutes.
paused|What is the weather like / on a sunny day in spring?
paused|What is twelve times / thirteen?
paused|What time is it / in London?'

for voice in "$@"; do
    n=0
    while IFS='|' read -r kind question; do
        n=$((n + 1))
        parts=()
        IFS='/' read -ra pieces <<<"$question"
        for i in "${!pieces[@]}"; do
            "$loopd" say --voice "$voice" --output "$out/$voice-$n-$i.wav" "${pieces[$i]}" 2>"$out/say.log" || {
                echo "voice-latency: \`loopd say --voice $voice\` failed:" >&2
                cat "$out/say.log" >&2
                exit 1
            }
            parts+=("$out/$voice-$n-$i.wav")
        done
        wav=$out/$voice-$n.wav
        python3 - "$wav" "${parts[@]}" <<'PY'
import sys, wave
out, parts = sys.argv[1], sys.argv[2:]
frames, params = [], None
for i, part in enumerate(parts):
    with wave.open(part) as w:
        params = params or w.getparams()
        frames.append(w.readframes(w.getnframes()))
silence = lambda s: b"\0" * (int(params.framerate * s) * params.sampwidth * params.nchannels)
with wave.open(out, "wb") as w:
    w.setparams(params)
    w.writeframes(silence(0.3) + silence(0.7).join(frames) + silence(2.0))
PY
        XDG_STATE_HOME=$out "$loopd" listen --voice "$voice" --turn "$turn" --vad "$vad" "${early[@]}" --input "$wav" --output "$out/$voice-$n-answer.wav" --json --once 2>"$out/$voice-$n.log" |
            python3 -c '
import json, sys
kind, question, voice = sys.argv[1:4]
for line in sys.stdin:
    turn = json.loads(line)
    turn.pop("trace", None)
    turn.update(kind=kind, asked=question.replace(" / ", " "), voice=voice)
    print(json.dumps(turn))' "$kind" "$question" "$voice" >>"$out/turns.jsonl" ||
            python3 -c '
import json, sys
kind, question, voice, log = sys.argv[1:5]
lines = [l.strip() for l in open(log, errors="replace") if l.strip()]
said = [i for i, l in enumerate(lines) if l.startswith("loopd:")]
error = " ".join(lines[said[-1] if said else -1:]) if lines else "no output"
print(json.dumps({"kind": kind, "asked": question, "voice": voice, "failed": True, "error": error}))' "$kind" "$question" "$voice" "$out/$voice-$n.log" >>"$out/turns.jsonl"
    done <<<"$questions"
done

# False wake-ups: every utterance found in a sound without speech (heard
# with a wake phrase, so that nothing is answered) is one.
mkdir -p "$out/noise"
python3 benches/noise-wavs.py "$out/noise"
for wav in "$out"/noise/*.wav; do
    name=$(basename "$wav" .wav)
    # Nothing heard is what a sound without speech should give: `listen`
    # then says "no question heard" and exits 1.
    if LOOPD_LOG=loopd::frontends::listen=debug XDG_STATE_HOME=$out "$loopd" listen --turn "$turn" --vad "$vad" \
        --wake "hey loop" --input "$wav" --output /dev/null >/dev/null 2>"$out/noise/$name.log" ||
        grep -q '^loopd: no question heard' "$out/noise/$name.log"; then
        echo "$name $(grep -c ' heard: ' "$out/noise/$name.log" || true)" >>"$out/noise.txt"
    else
        echo "voice-latency: listening to $name failed: $(grep -m1 '^loopd:' "$out/noise/$name.log" || tail -1 "$out/noise/$name.log")" >&2
        echo "$name failed" >>"$out/noise.txt"
    fi
done

python3 - "$out/turns.jsonl" "$out/noise.txt" <<'PY'
import json, re, statistics, sys
turns = [json.loads(l) for l in open(sys.argv[1])]
def pct(values, p):
    values = sorted(values)
    if not values:
        return float("nan")
    return values[min(len(values) - 1, round(p / 100 * (len(values) - 1)))]
NUMBERS = dict(zip("zero one two three four five six seven eight nine ten eleven twelve thirteen "
                   "fourteen fifteen sixteen seventeen eighteen nineteen twenty".split(), range(21)))
words = lambda s: [str(NUMBERS.get(w, w)) for w in re.findall(r"[a-z0-9]+", s.lower())]
rows = []
for group in ["all", "plain", "tool", "paused"]:
    chosen = [t for t in turns if not t.get("failed") and group in ("all", t["kind"])]
    stages = {
        "turn end": [t["vad_ms"] for t in chosen],
        "transcript": [t.get("transcript_ms", t["vad_ms"] + t["stt_ms"]) for t in chosen],
        "Whisper": [t["stt_ms"] for t in chosen],
        "first answer token": [t["first_answer_token_ms"] for t in chosen if t.get("first_answer_token_ms") is not None],
        "first audio": [t["first_audio_ms"] for t in chosen if t.get("first_audio_ms") is not None],
    }
    cells = " | ".join(f"{pct(v, 50):.0f} / {pct(v, 90):.0f}" for v in stages.values())
    rows.append(f"| {group} ({len(chosen)}) | {cells} |")
print("| questions | " + " | ".join(f"{s} p50 / p90 ms" for s in stages) + " |")
print("|---|" + "---|" * len(stages))
print("\n".join(rows))
cut = [t for t in turns if t["kind"] == "paused" and not t.get("failed")
       and words(t["asked"])[-1] not in words(t.get("transcript", ""))]
failed = [t for t in turns if t.get("failed")]
answered = [t for t in turns if not t.get("failed")]
print(f"transcribed in the pause: {sum(bool(t.get('transcribed_early')) for t in answered)} of {len(answered)} turns; "
      f"asked in the pause: {sum(bool(t.get('asked_early')) for t in answered)}; "
      f"Whisper read an earlier transcription's tokens in {sum(t.get('stt_reused_tokens', 0) > 0 for t in answered)} "
      f"({sum(t.get('stt_reused_tokens', 0) for t in answered)} tokens)")
first_calls = [t["stats"]["calls"][0] for t in answered if (t.get("stats") or {}).get("calls")]
print(f"prompt computed while the user spoke: {sum(t.get('prefilled_tokens', 0) > 0 for t in answered)} turns "
      f"({sum(t.get('prefilled_tokens', 0) for t in answered)} tokens); the answer's first call then computed "
      f"{pct([c['prefill_tokens'] for c in first_calls], 50):.0f} / {pct([c['prefill_tokens'] for c in first_calls], 90):.0f} "
      f"tokens (p50 / p90) in {pct([c['prefill_ms'] for c in first_calls], 50):.0f} / "
      f"{pct([c['prefill_ms'] for c in first_calls], 90):.0f} ms")
print(f"\nearly cut-offs on paused questions: {len(cut)} of {sum(t['kind'] == 'paused' for t in turns)}"
      + "".join(f"\n  {t['voice']}: heard {t.get('transcript')!r} of {t['asked']!r}" for t in cut))
sounds = [line.split() for line in open(sys.argv[2])]
woken = [(name, n) for name, n in sounds if n != "failed"]
deaf = [name for name, n in sounds if n == "failed"]
false = [(name, int(n)) for name, n in woken if int(n) > 0]
print(f"false wake-ups: {sum(n for _, n in false)} in {len(false)} of {len(woken)} sounds without speech"
      + (f" ({', '.join(f'{name}: {n}' for name, n in false)})" if false else "")
      + (f"; not heard (listen failed): {', '.join(deaf)}" if deaf else ""))
errors = sorted({t.get("error", "?") for t in failed})
print(f"failed runs: {len(failed)}; turns: {sys.argv[1]}"
      + "".join(f"\n  {error}" for error in errors))
if failed or deaf:
    sys.exit(1)
PY
