"""The official `ollama` Python client asks `loopd serve --http` one question
with `options` seed and temperature, then greedy with and without a `stop`
option, for tests/it/http.rs. Prints one JSON object: the text for each
seed, in order, and the greedy texts.

    sampling.py URL MODEL QUESTION SEED...
"""

import json
import sys

import ollama


def main():
    url, model, question, seeds = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    client = ollama.Client(host=url, timeout=300)
    texts = []
    for seed in seeds:
        done = client.chat(model=model, messages=[{"role": "user", "content": question}],
                           options={"temperature": 1.0, "top_p": 0.95, "seed": int(seed),
                                    "num_predict": 24})
        texts.append(done.message.content)
    listed = {}
    for name, stop in [("plain", None), ("stopped", [","])]:
        options = {"temperature": 0, "num_predict": 40}
        if stop:
            options["stop"] = stop
        done = client.chat(model=model, options=options, messages=[
            {"role": "user", "content": "Name three colours, separated by commas."}])
        listed[name] = done.message.content
    print(json.dumps({"texts": texts, "listed": listed}))


if __name__ == "__main__":
    main()
