"""An MCP stdio server built on the `mcp` SDK's FastMCP, for loopd's tests.

It knows facts nobody else does (the codes of made-up space stations), and
with `VAULT_TROUBLE=1` tools that stall and crash, so the tests can see
what loopd does with each, and one that names its environment. On stdio, or with `--http PORT` over streamable
HTTP at http://127.0.0.1:PORT/mcp.
"""

import os
import sys
import time

from mcp.server.fastmcp import FastMCP

CODES = {"aurora": "VX-7781", "borealis": "QT-2046", "cygnus": "LM-5190"}

app = FastMCP("vault")


@app.tool()
def station_code(station: str) -> str:
    """The secret access code of a space station, by the station's name."""
    code = CODES.get(station.strip().lower().removeprefix("station ").strip())
    if code is None:
        raise ValueError(f"no station named {station!r}; known: {', '.join(CODES)}")
    return code


def wait(seconds: float) -> str:
    """Waits this many seconds, then says so."""
    time.sleep(seconds)
    return f"waited {seconds} s"


def crash() -> str:
    """Makes the server exit in the middle of the call."""
    sys.stderr.write("vault: crashing on purpose\n")
    os._exit(3)


def environment() -> str:
    """The names of the variables in this server's environment."""
    return " ".join(sorted(os.environ))


if os.environ.get("VAULT_TROUBLE") == "1":
    app.tool()(wait)
    app.tool()(crash)
    app.tool()(environment)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--http"]:
        app.settings.port = int(sys.argv[2])
        app.run(transport="streamable-http")
    else:
        app.run()
