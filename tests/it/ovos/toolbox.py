"""A skill's toolbox on the OVOS bus (ovos-bus-client), for loopd's tests.

Usage: toolbox.py HOST PORT ROUTE TOOLBOX_ID

Serves the toolbox protocol the way ovos-plugin-manager's ToolBox does:
`ovos.persona.tools.discover` is answered with `Message.response` carrying
`{"tools", "toolbox_id"}`, and `ovos.persona.tools.<id>.call` with
`{"result", "toolbox_id"}` or `{"error", "toolbox_id"}`. Once bound it also
announces itself (a toolbox that starts after loopd), prints READY, and
serves until killed.
"""

import sys
import time

from ovos_bus_client.client import MessageBusClient
from ovos_bus_client.message import Message

CODES = {"aurora": "VX-7781", "borealis": "QT-2046", "cygnus": "LM-5190"}

TOOLS = [
    {
        "name": "station_code",
        "description": "The secret access code of a space station, by the station's name.",
        "argument_schema": {
            "type": "object",
            "properties": {"station": {"type": "string", "description": "The station's name."}},
            "required": ["station"],
        },
        "output_schema": {
            "type": "object",
            "properties": {"code": {"type": "string"}},
        },
    },
    {
        "name": "wait",
        "description": "Waits this many seconds, then says so.",
        "argument_schema": {
            "type": "object",
            "properties": {"seconds": {"type": "number"}},
            "required": ["seconds"],
        },
        "output_schema": {"type": "object"},
    },
]


def run(name, kwargs):
    if name == "station_code":
        station = kwargs["station"].strip().lower().removeprefix("station ").strip()
        if station not in CODES:
            raise ValueError(f"no station named {kwargs['station']!r}")
        return {"code": CODES[station]}
    if name == "wait":
        time.sleep(float(kwargs["seconds"]))
        return {"waited": kwargs["seconds"]}
    raise ValueError(f"Unknown tool '{name}'")


def main():
    host, port, route, toolbox_id = sys.argv[1:5]
    bus = MessageBusClient(host=host, port=int(port), route=route)

    def described(message):
        return message.response({"tools": TOOLS, "toolbox_id": toolbox_id})

    def on_discover(message):
        bus.emit(described(message))

    def on_call(message):
        try:
            result = run(message.data.get("name", ""), message.data.get("kwargs") or {})
            bus.emit(message.response({"result": result, "toolbox_id": toolbox_id}))
        except Exception as e:
            bus.emit(message.response({"error": f"{type(e).__name__}: {e}",
                                       "toolbox_id": toolbox_id}))

    bus.on("ovos.persona.tools.discover", on_discover)
    bus.on(f"ovos.persona.tools.{toolbox_id}.call", on_call)
    bus.run_in_thread()
    if not bus.connected_event.wait(15):
        sys.exit("could not connect")
    bus.emit(described(Message("ovos.persona.tools.discover")))
    print("READY", flush=True)
    while True:
        time.sleep(1)


if __name__ == "__main__":
    main()
