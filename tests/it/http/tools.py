"""Client-defined tools through the real `openai` and `ollama` Python
clients, for tests/it/http.rs. Prints one JSON object on stdout.

    tools.py openai|ollama BASE_URL home      smart-home commands, streamed and whole in turn
    tools.py openai|ollama BASE_URL exchange  a call, its result, then the answer
    tools.py openai|ollama BASE_URL choices   tool_choice / format variants
    tools.py openai BASE_URL bad              bad input and the errors it gets
    tools.py ollama BASE_URL misc             models, show, and the errors Ollama clients get

The smart-home requests are shaped the way Home Assistant's Ollama
integration builds them (homeassistant/components/ollama/conversation.py
and helpers/llm.py): a system prompt listing the exposed entities as YAML,
the intents as function tools with JSON-schema parameters, streamed.
"""

import json
import sys

SYSTEM = """You are a voice assistant for a smart home. Answer in plain text, briefly.
To control a device, always call one of the tools. Pass the device's name and domain, or an area and a domain.
An overview of the areas and the devices in this home:
- names: Kitchen Light
  domain: light
  state: 'off'
  areas: Kitchen
- names: Porch Light
  domain: light
  state: 'on'
  areas: Porch
- names: Thermostat
  domain: climate
  state: heat
  areas: Living Room
- names: Ceiling Fan
  domain: fan
  state: 'off'
  areas: Bedroom
"""

DOMAINS = ["light", "switch", "fan", "cover", "climate", "lock"]


def target(extra=None, required=None):
    properties = {
        "name": {"type": "string"},
        "area": {"type": "string"},
        "floor": {"type": "string"},
        "domain": {"type": "array", "items": {"type": "string", "enum": DOMAINS}},
    }
    properties.update(extra or {})
    schema = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    return schema


TOOLS = [
    {"type": "function", "function": {
        "name": "HassTurnOn", "description": "Turns on/opens a device or entity",
        "parameters": target()}},
    {"type": "function", "function": {
        "name": "HassTurnOff", "description": "Turns off/closes a device or entity",
        "parameters": target()}},
    {"type": "function", "function": {
        "name": "HassClimateSetTemperature",
        "description": "Sets the desired temperature of a climate device or entity",
        "parameters": target({"temperature": {"type": "number"}}, ["temperature"])}},
    {"type": "function", "function": {
        "name": "HassLightSet", "description": "Sets the brightness or color of a light",
        "parameters": target({"brightness": {"type": "integer", "minimum": 0, "maximum": 100},
                              "color": {"type": "string"}})}},
    {"type": "function", "function": {
        "name": "GetLiveContext",
        "description": "Provides real-time information about the CURRENT state of devices",
        "parameters": {"type": "object", "properties": {}}}},
]

COMMANDS = [
    "Turn on the kitchen light",
    "Set the thermostat to 21 degrees",
    "Turn off the porch light",
]


class OpenAI:
    def __init__(self, url):
        import openai
        self.errors = (openai.APIStatusError,)
        self.client = openai.OpenAI(base_url=url, api_key="none", max_retries=0, timeout=300)

    def chat(self, messages, stream, **extra):
        create = self.client.chat.completions.create
        if not stream:
            done = create(model="default", messages=messages, temperature=0, **extra)
            message = done.choices[0].message
            calls = [{"name": c.function.name, "arguments": json.loads(c.function.arguments),
                      "id": c.id} for c in message.tool_calls or []]
            return {"content": message.content, "calls": calls,
                    "finish_reason": done.choices[0].finish_reason}
        content, parts, finish = "", {}, None
        for chunk in create(model="default", messages=messages, temperature=0, stream=True,
                            **extra):
            for choice in chunk.choices:
                content += choice.delta.content or ""
                for call in choice.delta.tool_calls or []:
                    part = parts.setdefault(call.index, {"name": "", "arguments": "", "id": None})
                    part["id"] = part["id"] or call.id
                    if call.function and call.function.name:
                        part["name"] += call.function.name
                    if call.function and call.function.arguments:
                        part["arguments"] += call.function.arguments
                finish = choice.finish_reason or finish
        calls = [{"name": p["name"], "arguments": json.loads(p["arguments"]), "id": p["id"]}
                 for _, p in sorted(parts.items())]
        return {"content": content or None, "calls": calls, "finish_reason": finish}

    def call_message(self, calls):
        return {"role": "assistant", "content": None, "tool_calls": [
            {"id": c["id"], "type": "function",
             "function": {"name": c["name"], "arguments": json.dumps(c["arguments"])}}
            for c in calls]}

    def result_message(self, call, result):
        return {"role": "tool", "tool_call_id": call["id"], "content": json.dumps(result)}


class Ollama:
    def __init__(self, url):
        import ollama
        self.errors = (ollama.ResponseError,)
        self.client = ollama.Client(host=url, timeout=300)

    def chat(self, messages, stream, tools=None, tool_choice=None, response_format=None):
        fmt = None
        if response_format:
            fmt = response_format["json_schema"]["schema"]
        options = {"temperature": 0, "num_ctx": 8192}
        if not stream:
            done = self.client.chat(model="default", messages=messages, tools=tools,
                                    format=fmt, options=options, keep_alive="300s")
            calls = [{"name": c.function.name, "arguments": dict(c.function.arguments)}
                     for c in done.message.tool_calls or []]
            return {"content": done.message.content or None, "calls": calls,
                    "finish_reason": done.done_reason}
        content, calls, finish = "", [], None
        for part in self.client.chat(model="default", messages=messages, tools=tools,
                                     format=fmt, options=options, keep_alive="300s",
                                     stream=True):
            content += part.message.content or ""
            calls += [{"name": c.function.name, "arguments": dict(c.function.arguments)}
                      for c in part.message.tool_calls or []]
            if part.done:
                finish = part.done_reason
        return {"content": content or None, "calls": calls, "finish_reason": finish}

    def call_message(self, calls):
        return {"role": "assistant", "content": "", "tool_calls": [
            {"function": {"name": c["name"], "arguments": c["arguments"]}} for c in calls]}

    def result_message(self, call, result):
        return {"role": "tool", "content": json.dumps(result)}


def conversation(text):
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": text}]


def home(api):
    """Each command once, streamed and whole in turn; the two APIs start
    on opposite modes, so every command is asked both ways."""
    out = []
    first_streamed = isinstance(api, Ollama)
    for n, command in enumerate(COMMANDS):
        stream = first_streamed != (n % 2 == 1)
        reply = api.chat(conversation(command), stream, tools=TOOLS)
        reply.update({"command": command, "stream": stream})
        out.append(reply)
    return {"replies": out}


def exchange(api):
    messages = conversation("Turn on the kitchen light")
    first = api.chat(messages, False, tools=TOOLS)
    if not first["calls"]:
        return {"first": first}
    messages.append(api.call_message(first["calls"]))
    for call in first["calls"]:
        messages.append(api.result_message(call, {
            "speech": {}, "response_type": "action_done",
            "data": {"success": [{"name": "Kitchen Light", "type": "entity"}], "failed": []}}))
    second = api.chat(messages, True, tools=TOOLS)
    return {"first": first, "second": second}


def choices(api):
    out = {}
    question = conversation("What is the capital of France?")
    if isinstance(api, OpenAI):
        out["required"] = api.chat(question, False, tools=TOOLS, tool_choice="required")
        out["named"] = api.chat(conversation("Turn on the kitchen light"), False, tools=TOOLS,
                                tool_choice={"type": "function",
                                             "function": {"name": "HassLightSet"}})
        out["none"] = api.chat(conversation("Turn on the kitchen light"), False, tools=TOOLS,
                               tool_choice="none")
    schema = {"type": "object", "properties": {"city": {"type": "string"},
                                               "country": {"type": "string"}},
              "required": ["city", "country"], "additionalProperties": False}
    out["format"] = api.chat(question, False, response_format={
        "type": "json_schema", "json_schema": {"name": "place", "schema": schema}})
    return out


def bad(api):
    out = {}
    cases = {
        "schema": dict(messages=conversation("hi"), tools=[{"type": "function", "function": {
            "name": "f", "parameters": {"type": "object", "properties": {"x": {"type": 7}}}}}]),
        "tool_choice": dict(messages=conversation("hi"), tools=TOOLS, tool_choice="sometimes"),
        "orphan_result": dict(messages=conversation("hi") + [
            {"role": "tool", "tool_call_id": "call_nowhere", "content": "{}"}], tools=TOOLS),
        "not_a_tool": dict(messages=conversation("hi"), tools=[{"type": "cmd", "name": "x"}]),
        "unsatisfiable": dict(messages=conversation("hi"), tools=[{"type": "function", "function": {
            "name": "f", "parameters": {"type": "object", "required": ["x"], "properties": {
                "x": {"type": "integer", "minimum": 5, "maximum": 1}}}}}]),
        "unsupported_keyword": dict(messages=conversation("Tag the note 'milk' as shopping."),
                                    max_tokens=24, tools=[{"type": "function", "function": {
            "name": "tag", "parameters": {"type": "object", "required": ["tags"], "properties": {
                "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": True}}}}}]),
    }
    for name, kwargs in cases.items():
        try:
            api.client.chat.completions.create(model="default", **kwargs)
            out[name] = {"status": 200}
        except api.errors as e:
            body = e.body if isinstance(e.body, dict) else {}
            out[name] = {"status": e.status_code, "type": body.get("type"),
                         "message": body.get("message")}
    return out


def misc(api):
    out = {"tags": [m.model for m in api.client.list().models],
           "running": [m.model for m in api.client.ps().models],
           "show": api.client.show("default:latest").capabilities}
    cases = {
        "unknown_model": dict(model="llama3:8b", messages=conversation("hi")),
        "orphan_result": dict(model="default", messages=conversation("hi") + [
            {"role": "tool", "content": "{}"}], tools=TOOLS),
        "bad_format": dict(model="default", messages=conversation("hi"),
                           format={"type": "object", "properties": {"x": {"type": 7}}}),
    }
    for name, kwargs in cases.items():
        try:
            api.client.chat(**kwargs)
            out[name] = {"status": 200}
        except api.errors as e:
            out[name] = {"status": e.status_code, "error": e.error}
    generated = api.client.generate(model="default", prompt="Say hello.",
                                    options={"num_predict": 8, "temperature": 0})
    out["generate"] = {"response": generated.response, "done": generated.done,
                       "eval_count": generated.eval_count}
    return out


def main():
    which, url, scenario = sys.argv[1], sys.argv[2], sys.argv[3]
    api = OpenAI(url) if which == "openai" else Ollama(url)
    print(json.dumps({"home": home, "exchange": exchange, "choices": choices,
                      "bad": bad, "misc": misc}[scenario](api)))


if __name__ == "__main__":
    main()
