"""The official `openai` Python client against `loopd serve --http`, for
tests/it/http.rs. Prints one JSON object per run on stdout.

    client.py URL KEY models
    client.py URL KEY ask MODEL QUESTION [stream|whole] [JSON_EXTRA]
    client.py URL KEY leave MODEL QUESTION     (goes away after the first delta)
"""

import json
import sys
import time

import openai


def main():
    url, key, what = sys.argv[1], sys.argv[2], sys.argv[3]
    client = openai.OpenAI(base_url=url, api_key=key, max_retries=0, timeout=120)
    try:
        if what == "models":
            print(json.dumps({"models": [m.id for m in client.models.list().data]}))
        elif what == "ask":
            model, question, mode = sys.argv[4], sys.argv[5], sys.argv[6]
            extra = json.loads(sys.argv[7]) if len(sys.argv) > 7 else {}
            print(json.dumps(ask(client, model, question, mode == "stream", extra)))
        elif what == "leave":
            model, question = sys.argv[4], sys.argv[5]
            stream = client.chat.completions.create(
                model=model,
                messages=[{"role": "user", "content": question}],
                stream=True,
                temperature=0,
                max_tokens=2000,
            )
            for chunk in stream:
                if chunk.choices and chunk.choices[0].delta.content:
                    break
            stream.close()
            print(json.dumps({"left": True}))
    except openai.APIStatusError as e:
        print(json.dumps({"error": type(e).__name__, "status": e.status_code,
                          "message": e.message}))
    except openai.APIError as e:
        print(json.dumps({"error": type(e).__name__, "message": e.message}))


def ask(client, model, question, stream, extra):
    messages = [{"role": "user", "content": question}]
    started = time.monotonic()
    if not stream:
        raw = client.chat.completions.with_raw_response.create(
            model=model, messages=messages, temperature=0, extra_body=extra)
        done = raw.parse()
        timings = (done.model_extra or {}).get("timings") or {}
        return {"content": done.choices[0].message.content,
                "model": done.model,
                "finish_reason": done.choices[0].finish_reason,
                "prompt_tokens": done.usage.prompt_tokens,
                "completion_tokens": done.usage.completion_tokens,
                "model_ms": timings.get("prompt_ms", 0) + timings.get("predicted_ms", 0),
                "server_timing": raw.headers.get("server-timing")}
    chunks = client.chat.completions.create(
        model=model, messages=messages, temperature=0, stream=True,
        stream_options={"include_usage": True}, extra_body=extra)
    content, thoughts, first, usage, finish = "", "", None, None, None
    for chunk in chunks:
        if chunk.usage:
            usage = chunk.usage
        for choice in chunk.choices:
            delta = choice.delta
            if delta.content:
                if first is None:
                    first = (time.monotonic() - started) * 1000
                content += delta.content
            thought = getattr(delta, "reasoning_content", None)
            if thought:
                thoughts += thought
            if choice.finish_reason:
                finish = choice.finish_reason
    return {"content": content, "thoughts": thoughts, "first_delta_ms": first,
            "finish_reason": finish,
            "prompt_tokens": usage.prompt_tokens if usage else None,
            "completion_tokens": usage.completion_tokens if usage else None}


if __name__ == "__main__":
    main()
