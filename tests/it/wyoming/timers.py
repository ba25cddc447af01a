"""Sets timers through loopd's Wyoming service with the real `wyoming` library.

Usage: timers.py HOST PORT
Prints one JSON object:
- "once": a connection that does not stay (one request, as Home Assistant
  makes): the answer to "Set a timer for 2 seconds.";
- "staying": a connection that pings first: the answers, each request's timer
  events, and the `timer-finished` that came, with the seconds it took.
"""
import asyncio
import json
import sys
import time

from wyoming.asr import Transcript
from wyoming.client import AsyncTcpClient
from wyoming.handle import Handled, HandledStop, NotHandled
from wyoming.ping import Ping, Pong
from wyoming.timer import TimerCancelled, TimerFinished, TimerStarted


async def request(client, text):
    """Asks `text`; the answer and the timer events before `handled-stop`."""
    await client.write_event(Transcript(text=text).event())
    answer, timers = None, []
    while True:
        event = await asyncio.wait_for(client.read_event(), timeout=120)
        if event is None:
            raise RuntimeError(f"the connection closed during {text!r}")
        if Handled.is_type(event.type):
            answer = Handled.from_event(event).text
        elif NotHandled.is_type(event.type):
            answer = "NOT HANDLED: " + (NotHandled.from_event(event).text or "")
        elif TimerStarted.is_type(event.type):
            started = TimerStarted.from_event(event)
            timers.append({"type": event.type, "id": started.id, "name": started.name,
                           "total_seconds": started.total_seconds,
                           "start_seconds": started.start_seconds})
        elif TimerCancelled.is_type(event.type):
            timers.append({"type": event.type, "id": TimerCancelled.from_event(event).id})
        elif HandledStop.is_type(event.type):
            return {"answer": answer, "timers": timers}


async def once(host, port):
    async with AsyncTcpClient(host, port) as client:
        return await request(client, "Set a timer for 2 seconds.")


async def staying(host, port):
    async with AsyncTcpClient(host, port) as client:
        await client.write_event(Ping().event())
        pong = await asyncio.wait_for(client.read_event(), timeout=10)
        assert Pong.is_type(pong.type), pong
        asked = time.monotonic()
        tea = await request(client, "Set a tea timer for 2 seconds.")
        pasta = await request(client, "Set a pasta timer for 10 minutes.")
        cancel = await request(client, "Cancel the pasta timer.")
        finished = None
        while finished is None and time.monotonic() - asked < 20:
            event = await asyncio.wait_for(client.read_event(), timeout=20)
            if event is not None and TimerFinished.is_type(event.type):
                finished = {"id": TimerFinished.from_event(event).id,
                            "after_s": time.monotonic() - asked}
        return {"tea": tea, "pasta": pasta, "cancel": cancel, "finished": finished}


async def main(host, port):
    print(json.dumps({"once": await once(host, port),
                      "staying": await staying(host, port)}))


asyncio.run(main(sys.argv[1], int(sys.argv[2])))
