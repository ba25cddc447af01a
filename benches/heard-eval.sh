#!/usr/bin/env bash
# Everyday questions as a voice front end hears them: each question and
# follow-up of a task file is spoken by a voice (`loopd say`), written down
# by Whisper (`loopd transcribe`), and the transcripts are asked through
# `loopd bench --loops react` with the file's own keys. The transcribed task
# file (`heard.jsonl`, each task's words as written in `said.jsonl`) and the
# WAVs are kept; the bench's report follows.
#
#   benches/heard-eval.sh TASKS.jsonl [VOICE] [BENCH ARGS ...]
#                 (VOICE: piper-joe, the default, or en-us for espeak-ng)
#
# Needs the default model and speech model, espeak-ng for en-us, and
# `models/fetch piper-joe` for the Piper voice.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: $0 TASKS.jsonl [VOICE] [BENCH ARGS ...]" >&2; exit 2; }
tasks=$1
voice=${2:-piper-joe}
shift $(($# >= 2 ? 2 : 1))
cargo build --release --quiet
loopd=$PWD/target/release/loopd
out=$(mktemp -d)
echo "heard-eval: $tasks spoken by $voice, heard by Whisper; files in $out" >&2

python3 - "$tasks" "$voice" "$loopd" "$out" <<'PY'
import json
import subprocess
import sys

tasks, voice, loopd, out = sys.argv[1:]


def heard(text, name):
    wav = f"{out}/{name}.wav"
    subprocess.run([loopd, "say", "--voice", voice, "--output", wav, text],
                   check=True, capture_output=True)
    done = subprocess.run([loopd, "transcribe", "--json", wav],
                          check=True, capture_output=True, text=True)
    return json.loads(done.stdout)["transcript"].strip() or "(nothing heard)"


changed = 0
with open(tasks) as lines, open(f"{out}/heard.jsonl", "w") as heard_file, \
        open(f"{out}/said.jsonl", "w") as said_file:
    for n, line in enumerate(lines):
        if not line.strip():
            continue
        task = json.loads(line)
        said = {"id": task["id"], "question": task["question"]}
        task["question"] = heard(task["question"], f"{n}")
        if task.get("follow_up"):
            said["follow_up"] = task["follow_up"]
            task["follow_up"] = heard(task["follow_up"], f"{n}-follow-up")
        changed += task["question"] != said["question"]
        heard_file.write(json.dumps(task) + "\n")
        said_file.write(json.dumps(said) + "\n")
print(f"heard-eval: {changed} questions written down otherwise than they were said",
      file=sys.stderr)
PY

"$loopd" bench --tasks "$out/heard.jsonl" --loops react "$@"
echo "heard-eval: transcripts in $out/heard.jsonl" >&2
