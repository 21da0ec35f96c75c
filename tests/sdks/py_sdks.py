"""The official Python SDKs, unchanged, against the replay endpoint (issue 45).

    python tests/sdks/py_sdks.py ROOT SDK TEXT FULL

SDK is openai (the Responses API), anthropic, google-genai or ollama. Each
is pointed at the lab as a product points it at its provider, over an httpx
client whose event hooks note when each request left and the response's
ground-truth id (`x-latency-lab-request-id`). It asks:

- TEXT once untimed, then three times timed (when each text delta arrived);
- FULL (reasoning, an answer, a tool call): what the SDK reports of it;
- a model the lab does not know: the SDK's own error.

and prints one JSON object: `rounds` (sent, id, arrived, all in ms on
`time.perf_counter`), `full` and `error`. The node test
(tests/e2e/py_sdks.test.mjs) judges it against the server's clock.
"""

import json
import sys
import time

import httpx


def now():
    return time.perf_counter() * 1000.0


def main():
    root, sdk, text, full = sys.argv[1:5]
    calls = []

    def on_request(_request):
        calls.append({"sent": now()})

    def on_response(response):
        calls[-1]["id"] = response.headers.get("x-latency-lab-request-id")

    hooks = {"request": [on_request], "response": [on_response]}
    run = RUNNERS[sdk](root, hooks)
    run["text"](lambda: None)
    rounds = []
    for _ in range(3):
        arrived = []
        run["text"](lambda: arrived.append(now()))
        rounds.append({**calls[-1], "arrived": arrived})
    out = {"rounds": rounds, "full": run["full"](), "error": run["error"]()}
    json.dump(out, sys.stdout)


def openai_sdk(root, hooks):
    import openai

    client = openai.OpenAI(base_url=f"{root}/v1", api_key="lab", max_retries=0,
                           http_client=httpx.Client(event_hooks=hooks, timeout=60))
    text, full = sys.argv[3], sys.argv[4]

    def ask(on_text):
        for event in client.responses.create(model=text, input="How fast?", stream=True):
            if event.type == "response.output_text.delta":
                on_text()

    def ask_full():
        kinds = set()
        with client.responses.stream(model=full, input="Weather?") as stream:
            for event in stream:
                kinds.add(event.type)
            r = stream.get_final_response()
        call = next(o for o in r.output if o.type == "function_call")
        return {
            "reasoning": "response.reasoning_summary_text.delta" in kinds,
            "text": r.output_text,
            "tool": call.name,
            "arguments": json.loads(call.arguments),
            "output_tokens": r.usage.output_tokens,
            "reasoning_tokens": r.usage.output_tokens_details.reasoning_tokens,
            "finish": r.status,
        }

    def error():
        try:
            client.responses.create(model="no-such-model", input="x", stream=True)
        except openai.NotFoundError as e:
            return {"type": "NotFoundError", "status": e.status_code, "message": str(e)}
        return None

    return {"text": ask, "full": ask_full, "error": error}


def anthropic_sdk(root, hooks):
    import anthropic

    # This SDK ships its own fork of httpx (httpx2) and refuses httpx's client.
    try:
        import httpx2 as client_lib
    except ImportError:
        client_lib = httpx
    client = anthropic.Anthropic(base_url=root, api_key="lab", max_retries=0,
                                 http_client=client_lib.Client(event_hooks=hooks, timeout=60))
    text, full = sys.argv[3], sys.argv[4]
    user = [{"role": "user", "content": "How fast?"}]

    def ask(on_text):
        with client.messages.stream(model=text, max_tokens=64, messages=user) as stream:
            for _ in stream.text_stream:
                on_text()

    def ask_full():
        thinking = ""
        with client.messages.stream(model=full, max_tokens=64, messages=user) as stream:
            for event in stream:
                if event.type == "thinking":
                    thinking += event.thinking
            m = stream.get_final_message()
        return {
            "reasoning": len(thinking) > 0,
            "text": "".join(b.text for b in m.content if b.type == "text"),
            "blocks": [b.type for b in m.content],
            "tool": next(b.name for b in m.content if b.type == "tool_use"),
            "arguments": next(b.input for b in m.content if b.type == "tool_use"),
            "output_tokens": m.usage.output_tokens,
            "finish": m.stop_reason,
        }

    def error():
        try:
            client.messages.create(model="no-such-model", max_tokens=5, messages=user)
        except anthropic.NotFoundError as e:
            return {"type": "NotFoundError", "status": e.status_code, "message": str(e)}
        return None

    return {"text": ask, "full": ask_full, "error": error}


def google_sdk(root, hooks):
    from google import genai
    from google.genai import errors, types

    options = types.HttpOptions(base_url=root, httpx_client=httpx.Client(event_hooks=hooks, timeout=60))
    client = genai.Client(api_key="lab", http_options=options)
    text, full = sys.argv[3], sys.argv[4]

    def ask(on_text):
        for chunk in client.models.generate_content_stream(model=text, contents="How fast?"):
            if chunk.text:
                on_text()

    def ask_full():
        thoughts, answer, calls, usage = 0, "", [], None
        for chunk in client.models.generate_content_stream(model=full, contents="Weather?"):
            for part in chunk.candidates[0].content.parts or []:
                if part.thought:
                    thoughts += 1
                elif part.text:
                    answer += part.text
            calls += chunk.function_calls or []
            usage = chunk.usage_metadata or usage
        return {
            "reasoning": thoughts > 0,
            "text": answer,
            "tool": calls[0].name,
            "arguments": calls[0].args,
            "output_tokens": usage.candidates_token_count + usage.thoughts_token_count,
            "reasoning_tokens": usage.thoughts_token_count,
        }

    def error():
        try:
            for _ in client.models.generate_content_stream(model="no-such-model", contents="x"):
                pass
        except errors.ClientError as e:
            return {"type": "ClientError", "status": e.code, "message": str(e)}
        return None

    return {"text": ask, "full": ask_full, "error": error}


def ollama_sdk(root, hooks):
    import ollama

    client = ollama.Client(host=root, event_hooks=hooks)
    text, full = sys.argv[3], sys.argv[4]
    user = [{"role": "user", "content": "How fast?"}]

    def ask(on_text):
        for part in client.chat(model=text, messages=user, stream=True):
            if part.message.content:
                on_text()

    def ask_full():
        thinking, answer, calls, last = "", "", [], None
        for part in client.chat(model=full, messages=user, stream=True):
            thinking += part.message.thinking or ""
            answer += part.message.content or ""
            calls += part.message.tool_calls or []
            last = part
        return {
            "reasoning": len(thinking) > 0,
            "text": answer,
            "tool": calls[0].function.name,
            "arguments": dict(calls[0].function.arguments),
            "output_tokens": last.eval_count,
            "finish": last.done_reason,
        }

    def error():
        try:
            for _ in client.chat(model="no-such-model", messages=user, stream=True):
                pass
        except ollama.ResponseError as e:
            return {"type": "ResponseError", "status": e.status_code, "message": str(e)}
        return None

    return {"text": ask, "full": ask_full, "error": error}


RUNNERS = {"openai": openai_sdk, "anthropic": anthropic_sdk, "google-genai": google_sdk, "ollama": ollama_sdk}

if __name__ == "__main__":
    main()
