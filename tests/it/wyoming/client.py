"""Talks to loopd's Wyoming service with the real `wyoming` client library.

Usage: client.py HOST PORT QUESTION.wav
Prints one JSON object: what describe, transcribe, synthesize and handle gave.
"""
import asyncio
import json
import sys
import wave

from wyoming.asr import Transcribe, Transcript
from wyoming.audio import AudioChunk, AudioStart, AudioStop
from wyoming.client import AsyncTcpClient
from wyoming.handle import Handled, HandledChunk, HandledStart, HandledStop, NotHandled
from wyoming.info import Describe, Info
from wyoming.tts import (Synthesize, SynthesizeChunk, SynthesizeStart, SynthesizeStop,
                         SynthesizeStopped)


async def describe(host, port):
    async with AsyncTcpClient(host, port) as client:
        await client.write_event(Describe().event())
        event = await client.read_event()
        info = Info.from_event(event)
        return {
            "asr_models": [m.name for p in info.asr for m in p.models],
            "tts_voices": [v.name for p in info.tts for v in p.voices],
            "handle_models": [m.name for p in info.handle for m in p.models],
            "handled_streaming": [p.supports_handled_streaming for p in info.handle],
            "tts_streaming": [p.supports_synthesize_streaming for p in info.tts],
        }


async def transcribe(host, port, path):
    with wave.open(path, "rb") as w:
        rate, width, channels = w.getframerate(), w.getsampwidth(), w.getnchannels()
        frames = w.readframes(w.getnframes())
    async with AsyncTcpClient(host, port) as client:
        await client.write_event(Transcribe(language="en").event())
        await client.write_event(AudioStart(rate=rate, width=width, channels=channels).event())
        step = 2048 * width * channels
        for at in range(0, len(frames), step):
            chunk = AudioChunk(rate=rate, width=width, channels=channels, audio=frames[at:at + step])
            await client.write_event(chunk.event())
        await client.write_event(AudioStop().event())
        event = await client.read_event()
        return Transcript.from_event(event).text


async def synthesize(host, port, text):
    async with AsyncTcpClient(host, port) as client:
        await client.write_event(Synthesize(text=text).event())
        samples, rate, types = 0, None, []
        while True:
            event = await client.read_event()
            types.append(event.type)
            if AudioStart.is_type(event.type):
                rate = AudioStart.from_event(event).rate
            elif AudioChunk.is_type(event.type):
                chunk = AudioChunk.from_event(event)
                samples += len(chunk.audio) // (chunk.width * chunk.channels)
            elif AudioStop.is_type(event.type):
                break
        return {"rate": rate, "seconds": samples / rate, "first": types[0], "last": types[-1]}


async def synthesize_streamed(host, port):
    """Streams three sentences as Home Assistant does; reads the first
    event back before the last two are sent."""
    sentences = ["The kitchen light is on.", " The porch light is off.",
                 " It is twenty one degrees inside."]
    async with AsyncTcpClient(host, port) as client:
        await client.write_event(SynthesizeStart().event())
        await client.write_event(SynthesizeChunk(text=sentences[0]).event())
        await client.write_event(SynthesizeChunk(text=sentences[1][:6]).event())
        first = await asyncio.wait_for(client.read_event(), timeout=30)
        for piece in [sentences[1][6:], sentences[2]]:
            await client.write_event(SynthesizeChunk(text=piece).event())
        await client.write_event(Synthesize(text="".join(sentences)).event())
        await client.write_event(SynthesizeStop().event())
        types, samples, rate = [first.type], 0, None
        if AudioStart.is_type(first.type):
            rate = AudioStart.from_event(first).rate
        while not SynthesizeStopped.is_type(types[-1]):
            event = await asyncio.wait_for(client.read_event(), timeout=60)
            types.append(event.type)
            if AudioChunk.is_type(event.type):
                chunk = AudioChunk.from_event(event)
                samples += len(chunk.audio) // (chunk.width * chunk.channels)
        return {"early": first.type, "starts": types.count("audio-start"),
                "stops": types.count("audio-stop"), "last": types[-1],
                "seconds": samples / rate if rate else 0}


async def handle(host, port, text):
    async with AsyncTcpClient(host, port) as client:
        await client.write_event(Transcript(text=text).event())
        types, chunks, final = [], [], None
        while True:
            event = await client.read_event()
            types.append(event.type)
            if HandledChunk.is_type(event.type):
                chunks.append(HandledChunk.from_event(event).text)
            elif Handled.is_type(event.type):
                final = Handled.from_event(event).text
            elif NotHandled.is_type(event.type):
                final = "NOT HANDLED: " + (NotHandled.from_event(event).text or "")
                break
            elif HandledStop.is_type(event.type):
                break
        return {"types": sorted(set(types)), "first": types[0], "last": types[-1],
                "chunks": len(chunks), "streamed": "".join(chunks), "text": final}


async def main():
    host, port, wav = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    out = {
        "describe": await describe(host, port),
        "transcript": await transcribe(host, port, wav),
        "synthesize": await synthesize(host, port, "Twelve times twelve is 144."),
        "streamed": await synthesize_streamed(host, port),
        "handle": await handle(host, port, "What is 12 times 12?"),
    }
    print(json.dumps(out))


asyncio.run(main())
