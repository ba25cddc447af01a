"""A desktop program's toolbox on D-Bus (jeepney), for loopd's tests.

Usage: toolbox.py NAME

Exports an object at /org/example/Doors with the interface
io.loopd.Toolbox1, registers it with loopd as toolbox NAME
(io.loopd.Loopd1.RegisterToolbox), prints READY, and answers
Call(s tool, s arguments_json) -> (s result_json) until killed: a result as
JSON, or a D-Bus error for a door it does not know.
"""

import json
import sys
import time

from jeepney import DBusAddress, HeaderFields, MessageType, new_error, new_method_call
from jeepney import new_method_return
from jeepney.io.blocking import open_dbus_connection

PATH = "/org/example/Doors"
CODES = {"garage": "4417", "shed": "9052", "front": "1386"}

TOOLS = [
    {
        "name": "door_code",
        "description": "The access code of a door of the house, by the door's name.",
        "argument_schema": {
            "type": "object",
            "properties": {"door": {"type": "string", "description": "The door, e.g. garage."}},
            "required": ["door"],
        },
        "output_schema": {"type": "object", "properties": {"code": {"type": "string"}}},
    },
    {
        "name": "wait",
        "description": "Waits this many seconds.",
        "argument_schema": {
            "type": "object",
            "properties": {"seconds": {"type": "number"}},
            "required": ["seconds"],
        },
    },
]


def main():
    name = sys.argv[1]
    conn = open_dbus_connection(bus="SESSION")
    loopd = DBusAddress("/io/loopd/Loopd1", bus_name="io.loopd.Loopd1",
                        interface="io.loopd.Loopd1")
    reply = conn.send_and_get_reply(
        new_method_call(loopd, "RegisterToolbox", "sso", (name, json.dumps(TOOLS), PATH)))
    if reply.header.message_type == MessageType.error:
        sys.exit(f"RegisterToolbox failed: {reply.body}")
    print("READY", flush=True)
    while True:
        msg = conn.receive()
        fields = msg.header.fields
        if (msg.header.message_type != MessageType.method_call
                or fields.get(HeaderFields.path) != PATH
                or fields.get(HeaderFields.member) != "Call"):
            continue
        tool, raw = msg.body
        args = json.loads(raw)
        if tool == "door_code":
            door = args["door"].strip().lower().removeprefix("the ").removesuffix(" door").strip()
            if door in CODES:
                conn.send(new_method_return(msg, "s", (json.dumps({"code": CODES[door]}),)))
            else:
                conn.send(new_error(msg, "org.example.Doors.Error.NoSuchDoor", "s",
                                    (f"no door named {args['door']!r}",)))
        elif tool == "wait":
            time.sleep(float(args["seconds"]))
            conn.send(new_method_return(msg, "s", (json.dumps({"waited": args["seconds"]}),)))
        else:
            conn.send(new_error(msg, "org.example.Doors.Error.UnknownTool", "s", (tool,)))


if __name__ == "__main__":
    main()
