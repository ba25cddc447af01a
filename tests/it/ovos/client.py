"""An OVOS bus client (ovos-bus-client) that talks to loopd for tests/it/bus.rs.

Usage: client.py HOST PORT ROUTE COMMAND JSON_ARGS

Sends one request, records every message of interest in the order it
arrived (with seconds since the request was sent), and prints one line
`RESULT {json}` on stdout. Exits 2 when the bus does not answer in time.
"""

import json
import sys
import threading
import time

from ovos_bus_client.client import MessageBusClient
from ovos_bus_client.message import Message


class Recorder(MessageBusClient):
    """Keeps every raw frame in arrival order (the emitter runs handlers on
    a thread pool, so order must be taken here, on the socket's thread)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.frames = []
        self.lock = threading.Lock()
        self.started = None
        self.arrived = threading.Condition(self.lock)

    def on_message(self, *args):
        raw = args[-1]
        with self.lock:
            self.frames.append((time.monotonic(), json.loads(raw)))
            self.arrived.notify_all()
        super().on_message(*args)

    def send(self, message):
        with self.lock:
            self.started = time.monotonic()
        self.emit(message)

    def wait_until(self, done, timeout):
        """Waits until done(frames) is true; returns the frames seen after
        the request was sent, each with its time since sending."""
        deadline = time.monotonic() + timeout
        with self.lock:
            while True:
                seen = [(t - self.started, m) for t, m in self.frames
                        if self.started is not None and t >= self.started]
                if done([m for _, m in seen]):
                    return seen
                left = deadline - time.monotonic()
                if left <= 0:
                    print("RESULT " + json.dumps({"timeout": True, "seen": seen}))
                    sys.exit(2)
                self.arrived.wait(left)


def context(args):
    ctx = {"session": {"session_id": args.get("session", "default")}}
    ctx.update(args.get("context", {}))
    return ctx


def main():
    host, port, route, command, raw = sys.argv[1:6]
    args = json.loads(raw)
    timeout = args.get("timeout", 90)
    bus = Recorder(host=host, port=int(port), route=route)
    bus.run_in_thread()
    if not bus.connected_event.wait(15):
        print("RESULT " + json.dumps({"error": "could not connect"}))
        sys.exit(2)

    def of(kinds):
        return lambda m: m["type"] in kinds

    if command == "list":
        bus.send(Message("ovos.persona.list", {}, context(args)))
        seen = bus.wait_until(lambda ms: any(map(of(["ovos.persona.list.response"]), ms)), timeout)
        wanted = [m for _, m in seen if m["type"] == "ovos.persona.list.response"]
        result = {"response": wanted[0]}
    elif command == "query":
        data = {"utterance": args["utterance"]}
        if "persona_id" in args:
            data["persona_id"] = args["persona_id"]
        bus.send(Message("ovos.persona.query", data, context(args)))
        seen = bus.wait_until(lambda ms: any(map(of(["ovos.persona.answer"]), ms)), timeout)
        result = {"answer": [m for _, m in seen if m["type"] == "ovos.persona.answer"][0]}
    elif command == "ask":
        rid = args["request_id"]
        data = dict(args["data"], request_id=rid)
        bus.send(Message("loopd.ask", data, context(args)))
        mine = lambda m: m["type"].startswith("loopd.") and m["data"].get("request_id") == rid
        done = lambda ms: any(mine(m) and m["type"] in ("loopd.answer", "loopd.error") for m in ms)
        seen = bus.wait_until(done, timeout)
        result = {"replies": [{"t": t, "message": m} for t, m in seen
                              if mine(m) and m["type"] != "loopd.ask"]}
    elif command == "utterance":
        kind = args.get("type", "recognizer_loop:utterance")
        data = {"utterances": [args["utterance"]], "lang": args.get("lang", "en-US")}
        data.update(args.get("data", {}))
        bus.send(Message(kind, data, context(args)))
        seen = bus.wait_until(lambda ms: any(map(of(["ovos.utterance.handled"]), ms)), timeout)
        result = {"replies": [{"t": t, "message": m} for t, m in seen
                              if m["type"] in ("speak", "ovos.utterance.handled")]}
    else:
        raise SystemExit(f"unknown command {command}")
    print("RESULT " + json.dumps(result))
    sys.stdout.flush()
    bus.close()


if __name__ == "__main__":
    main()
