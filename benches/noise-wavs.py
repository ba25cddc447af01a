"""Sounds that are not speech, for benches/voice-latency.sh's false
wake-ups: silence, music-like sounds (a piano melody, a synth pad, drums, a
song's backing, a hummed melody), noise (white, brown) and mains hum, and
clatter. 16 kHz mono WAVs of 8 s each, written into the directory named by
the first argument (default: the current one).

    python3 benches/noise-wavs.py DIR
"""
import math, os, random, struct, sys, wave

if len(sys.argv) > 1:
    os.chdir(sys.argv[1])
R = 16000
N = 8 * R
random.seed(7)

def write(name, xs, gain=0.3):
    peak = max(1e-9, max(abs(x) for x in xs))
    with wave.open(name, "wb") as w:
        w.setnchannels(1); w.setsampwidth(2); w.setframerate(R)
        w.writeframes(b"".join(struct.pack("<h", int(32767 * gain * x / peak)) for x in xs))

def tone(f, t, harmonics=6):
    return sum(math.sin(2 * math.pi * f * h * t) / h for h in range(1, harmonics + 1))

# piano-like: notes of a melody, each struck and decaying, with harmonics
notes = [261.6, 329.6, 392.0, 523.3, 440.0, 349.2, 293.7, 392.0]
piano = []
for i in range(N):
    t = i / R
    k = int(t / 0.5)
    dt = t - k * 0.5
    f = notes[k % len(notes)]
    piano.append(tone(f, t) * math.exp(-4 * dt) + 0.5 * tone(f * 1.5, t, 4) * math.exp(-5 * dt))
write("piano.wav", piano)

# chords held under a slow tremolo: a synth pad
pad = [ (tone(220, i / R) + tone(277.2, i / R) + tone(329.6, i / R)) * (0.7 + 0.3 * math.sin(2 * math.pi * 5 * i / R)) for i in range(N)]
write("pad.wav", pad)

# drums: a kick (decaying low sine) and a snare (noise bursts), 120 bpm
drums = []
for i in range(N):
    t = i / R
    beat = t % 0.5
    kick = math.sin(2 * math.pi * (60 + 80 * math.exp(-30 * beat)) * beat) * math.exp(-12 * beat)
    bar = t % 1.0
    snare = random.uniform(-1, 1) * math.exp(-20 * (bar - 0.5)) if bar >= 0.5 else 0.0
    hat = random.uniform(-0.3, 0.3) * math.exp(-60 * (t % 0.25))
    drums.append(kick + 0.6 * snare + hat)
write("drums.wav", drums)

# a song's backing: the piano, the drums and a bass line together
bass = [math.sin(2 * math.pi * notes[int(i / R / 0.5) % 8] / 2 * i / R) for i in range(N)]
song = [p / 3 + d / 2 + b / 3 for p, d, b in zip(piano, drums, bass)]
write("song.wav", song)

# a hummed-like melody: a voice-range tone with vibrato and formant-like harmonics
hum = []
phase = 0.0
for i in range(N):
    t = i / R
    f = notes[int(t / 0.5) % 8] / 2 * (1 + 0.01 * math.sin(2 * math.pi * 6 * t))
    phase += 2 * math.pi * f / R
    hum.append(sum(math.sin(h * phase) * (1.0 if 2 <= h <= 4 else 0.3) / h for h in range(1, 10)))
write("melody.wav", hum)

# white noise, and brown noise (a fan, rain)
write("white.wav", [random.uniform(-1, 1) for _ in range(N)], gain=0.1)
brown, x = [], 0.0
for _ in range(N):
    x = 0.98 * x + random.uniform(-1, 1)
    brown.append(x)
write("brown.wav", brown, gain=0.3)

# mains hum with harmonics
write("hum.wav", [tone(50, i / R, 8) for i in range(N)], gain=0.2)

# door knocks / clatter: short loud clicks at random times
clatter = [0.0] * N
for _ in range(20):
    at = random.randrange(N - 2000)
    for j in range(1500):
        clatter[at + j] += random.uniform(-1, 1) * math.exp(-j / 150)
write("clatter.wav", clatter)

with wave.open("silence.wav", "wb") as w:
    w.setnchannels(1); w.setsampwidth(2); w.setframerate(R); w.writeframes(b"\0\0" * N)
