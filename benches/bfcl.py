"""BFCL (the Berkeley Function-Calling Leaderboard) through an OpenAI
endpoint, graded by BFCL's own AST checker from the `bfcl-eval` package.

    bfcl.py BASE_URL MODEL LIMIT CATEGORY...     e.g. http://127.0.0.1:8080/v1 default 50 simple_python

Prints one JSON line: per category, how many were right, how many replies
held a call whose arguments were not JSON (malformed), and the median
seconds per question. BFCL's function names may hold dots, which OpenAI's
API does not allow: they are sent with underscores, and the checker is told
so (as for OpenAI's own models). BFCL's own types (`dict`, `float`, `tuple`,
`any`) become JSON Schema's.
"""

import json
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


def run(client, model, category, limit):
    questions, answers = load(category)
    right = malformed = 0
    seconds = []
    for entry in questions[:limit]:
        started = time.monotonic()
        try:
            reply = client.chat.completions.create(
                model=model, messages=entry["question"][0], temperature=0,
                tools=[tool(f) for f in entry["function"]], max_tokens=512)
            calls = reply.choices[0].message.tool_calls or []
        except openai.APIError as e:
            print(f"{entry['id']}: {e}", file=sys.stderr)
            calls = []
        seconds.append(time.monotonic() - started)
        output = []
        for call in calls:
            try:
                output.append({call.function.name: json.loads(call.function.arguments)})
            except (json.JSONDecodeError, TypeError):
                malformed += 1
        if category == "irrelevance":
            right += not output
            continue
        checked = ast_checker(entry["function"], output, answers[entry["id"]],
                              Language.PYTHON, category, "loopd")
        right += bool(checked["valid"])
    n = min(limit, len(questions))
    return {"right": right, "of": n, "accuracy": round(right / n, 3) if n else 0,
            "malformed": malformed, "median_s": round(statistics.median(seconds), 2)}


def main():
    url, model, limit, categories = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
    client = openai.OpenAI(base_url=url, api_key="none", max_retries=0, timeout=600)
    print(json.dumps({c: run(client, model, c, limit) for c in categories}))


if __name__ == "__main__":
    main()
