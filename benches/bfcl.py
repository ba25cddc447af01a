"""BFCL (the Berkeley Function-Calling Leaderboard) through an OpenAI
endpoint, graded by BFCL's own AST checker from the `bfcl-eval` package.

    bfcl.py openai|ollama BASE_URL MODEL LIMIT CATEGORY...
    e.g. bfcl.py openai http://127.0.0.1:8080/v1 default 50 simple_python

The `ollama` client sends the same tools to an Ollama API (`/api/chat`).

Prints one JSON line: per category, how many were right, how many replies
held a call whose arguments were not JSON (malformed), the median seconds
per question, and the median of what a request cost beyond the model's own
time (the client's wall time less the server's `timings`: prompt and
generation), when the server reports them. BFCL's function names may hold dots, which OpenAI's
API does not allow: they are sent with underscores, and the checker is told
so (as for OpenAI's own models). BFCL's own types (`dict`, `float`, `tuple`,
`any`) become JSON Schema's.
"""

import json
import os
import re
import statistics
import sys
import time
import types
from importlib import resources

import openai

# The checker imports the table of every model BFCL knows, which imports
# every vendor's SDK; it only needs to know that names had dots replaced.
config = types.ModuleType("bfcl_eval.constants.model_config")
config.MODEL_CONFIG_MAPPING = {"loopd": types.SimpleNamespace(underscore_to_dot=True)}
sys.modules["bfcl_eval.constants.model_config"] = config
from bfcl_eval.constants.enums import Language  # noqa: E402
from bfcl_eval.eval_checker.ast_eval.ast_checker import ast_checker  # noqa: E402

# BFCL_DUMP=FILE writes each question's calls and the checker's verdict,
# a JSON line each, for reading what went wrong.
DUMP = open(os.environ["BFCL_DUMP"], "a") if os.environ.get("BFCL_DUMP") else None

TYPES = {"dict": "object", "float": "number", "tuple": "array", "any": None}


def schema(value):
    """BFCL's parameter schema as JSON Schema."""
    if isinstance(value, list):
        return [schema(v) for v in value]
    if not isinstance(value, dict):
        return value
    out = {}
    for key, item in value.items():
        if key == "type" and isinstance(item, str):
            mapped = TYPES.get(item, item)
            if mapped is not None:
                out["type"] = mapped
        elif key == "properties":
            out[key] = {k: schema(v) for k, v in item.items()}
        else:
            out[key] = schema(item)
    return out


def tool(function):
    return {"type": "function", "function": {
        "name": function["name"].replace(".", "_"),
        "description": function.get("description", ""),
        "parameters": schema(function["parameters"])}}


def load(name):
    data = resources.files("bfcl_eval") / "data"
    questions = [json.loads(l) for l in (data / f"BFCL_v4_{name}.json").open()]
    answers = {}
    answer_file = data / "possible_answer" / f"BFCL_v4_{name}.json"
    if answer_file.is_file():
        answers = {a["id"]: a["ground_truth"] for a in map(json.loads, answer_file.open())}
    return questions, answers


class OpenAIClient:
    def __init__(self, url):
        self.client = openai.OpenAI(base_url=url, api_key="none", max_retries=0, timeout=600)

    def ask(self, model, messages, tools):
        """The calls as (name, arguments JSON text), the server's model ms,
        and the server's own ms for the request (`Server-Timing`), if given."""
        raw = self.client.chat.completions.with_raw_response.create(
            model=model, messages=messages, temperature=0, tools=tools, max_tokens=512)
        reply = raw.parse()
        self.text = reply.choices[0].message.content
        calls = [(c.function.name, c.function.arguments)
                 for c in reply.choices[0].message.tool_calls or []]
        timings = (reply.model_extra or {}).get("timings")
        model_ms = timings.get("prompt_ms", 0) + timings.get("predicted_ms", 0) if timings else None
        server = re.search(r"total;dur=([0-9.]+)", raw.headers.get("server-timing", ""))
        return calls, model_ms, float(server.group(1)) if server else None


class OllamaClient:
    def __init__(self, url):
        import ollama
        self.client = ollama.Client(host=url, timeout=600)

    def ask(self, model, messages, tools):
        reply = self.client.chat(model=model, messages=messages, tools=tools,
                                 options={"temperature": 0, "num_predict": 512})
        self.text = reply.message.content
        calls = [(c.function.name, json.dumps(dict(c.function.arguments)))
                 for c in reply.message.tool_calls or []]
        nanos = (reply.prompt_eval_duration or 0) + (reply.eval_duration or 0)
        return calls, nanos / 1e6 if nanos else None, None


def run(client, model, category, limit):
    questions, answers = load(category)
    right = malformed = 0
    seconds, overheads, server_overheads = [], [], []
    for entry in questions[:limit]:
        started = time.monotonic()
        try:
            calls, model_ms, server_ms = client.ask(model, entry["question"][0],
                                                    [tool(f) for f in entry["function"]])
        except Exception as e:  # an API error is a wrong answer, said on stderr
            print(f"{entry['id']}: {e}", file=sys.stderr)
            calls, model_ms, server_ms = [], None, None
        seconds.append(time.monotonic() - started)
        if model_ms is not None:
            overheads.append(seconds[-1] * 1000 - model_ms)
            if server_ms is not None:
                server_overheads.append(server_ms - model_ms)
        output = []
        for name, arguments in calls:
            try:
                output.append({name: json.loads(arguments)})
            except (json.JSONDecodeError, TypeError):
                malformed += 1
        if category == "irrelevance":
            checked = {"valid": not output}
        else:
            checked = ast_checker(entry["function"], output, answers[entry["id"]],
                                  Language.PYTHON, category, "loopd")
        right += bool(checked["valid"])
        if DUMP:
            print(json.dumps({"id": entry["id"], "output": output, "calls": calls,
                              "text": getattr(client, "text", None), "valid": bool(checked["valid"]),
                              "error": checked.get("error"),
                              "answer": answers.get(entry["id"])}), file=DUMP, flush=True)
    n = min(limit, len(questions))
    return {"right": right, "of": n, "accuracy": round(right / n, 3) if n else 0,
            "malformed": malformed, "median_s": round(statistics.median(seconds), 2),
            "overhead_ms": round(statistics.median(overheads), 1) if overheads else None,
            "server_overhead_ms": (round(statistics.median(server_overheads), 1)
                                   if server_overheads else None)}


def main():
    api, url, model, limit = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    categories = sys.argv[5:]
    client = OpenAIClient(url) if api == "openai" else OllamaClient(url)
    print(json.dumps({c: run(client, model, c, limit) for c in categories}))


if __name__ == "__main__":
    main()
