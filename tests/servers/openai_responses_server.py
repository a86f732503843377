#!/usr/bin/env python3
# tests/servers/openai_responses_server.py — a scripted OpenAI Responses API server on 127.0.0.1 for driving Codex CLI.
#
#   openai_responses_server.py --port-file FILE --log FILE [--script FILE]
# Point Codex at it with a model provider whose base_url is http://127.0.0.1:PORT/v1 and wire_api = "responses"
# (see tests/agents/FINDINGS.md). The script and the log are described in scriptlib.py. It serves:
#   POST /v1/responses        main requests (those offering tools) take the next step; answered as SSE when
#                             the body says "stream": true (Codex always does), else as one response object
#   POST /v1/responses (no tools)  side requests: a short fixed text, no step used
#   GET  /v1/models           one model, "gpt-test" (both the OpenAI list shape and Codex's {"models": []})
# and answers anything else 404 with OpenAI's error shape (logged).
# Steps: "text"; "tool_use" ({"name", "input"} or a list: an object input becomes a function_call whose
# "arguments" is its JSON, a string input a custom_tool_call, as Codex's freeform apply_patch is called);
# "status" + "error" {"message", "type", "code"} + "headers"; "stream_error" {"code", "message"} (HTTP 200,
# then response.failed, as the API reports a rate limit or overload met mid-stream; a request that does not
# stream gets the matching HTTP error instead); "usage" (below).
import json
import sys
import time
from itertools import count

sys.dont_write_bytecode = True  # no __pycache__ beside the servers in the source tree
import scriptlib  # noqa: E402

# Responses' usage object. input_tokens includes the cached ones read (input_tokens_details.cached_tokens) and
# written (cache_write_tokens, which Codex reads too): 120 uncached + 300 written + 5000 read.
DEFAULT_USAGE = {"input_tokens": 5420, "input_tokens_details": {"cached_tokens": 5000, "cache_write_tokens": 300},
                 "output_tokens": 30, "output_tokens_details": {"reasoning_tokens": 10}, "total_tokens": 5450}

# The error object the API gives for each status (type, code, message).
ERRORS = {
    400: ("invalid_request_error", None, "Invalid request."),
    401: ("invalid_request_error", "invalid_api_key", "Incorrect API key provided: sk-test. You can find your API key "
          "at https://platform.openai.com/account/api-keys."),
    403: ("invalid_request_error", "unsupported_country_region_territory", "Country, region, or territory not supported"),
    429: ("requests", "rate_limit_exceeded", "Rate limit reached for gpt-test in organization org-test on requests per "
          "min (RPM): Limit 3, Used 3, Requested 1. Please try again in 20s."),
    500: ("server_error", None, "The server had an error while processing your request. Sorry about that!"),
    503: ("server_error", None, "The engine is currently overloaded, please try again later"),
    529: ("server_error", "overloaded", "The server is overloaded, please try again later"),
}

IDS = count(1)


def new_id(prefix):
    return "%s_%06d" % (prefix, next(IDS))


def usage_of(step):
    u = json.loads(json.dumps(DEFAULT_USAGE))
    u.update(step.get("usage") or {})
    return u


def items_of(step):
    """The step's output items: a message with its text (if any), then its tool calls."""
    items = []
    if step.get("text") is not None:
        items.append({"id": new_id("msg"), "type": "message", "status": "completed", "role": "assistant",
                      "content": [{"type": "output_text", "text": step["text"], "annotations": []}]})
    for t in scriptlib.tool_uses(step):
        inp = t.get("input", {})
        if isinstance(inp, str):
            items.append({"id": new_id("ctc"), "type": "custom_tool_call", "status": "completed",
                          "call_id": new_id("call"), "name": t["name"], "input": inp})
        else:
            items.append({"id": new_id("fc"), "type": "function_call", "status": "completed",
                          "call_id": new_id("call"), "name": t["name"], "arguments": json.dumps(inp)})
    return items


def send_error(h, status, error=None, headers=None):
    etype, code, message = ERRORS.get(status, ("server_error", None, "error %d" % status))
    error = dict(error or {})
    error.setdefault("message", message)
    error.setdefault("type", etype)
    error.setdefault("param", None)
    error.setdefault("code", code)
    h.send_json(status, {"error": error}, dict({"x-request-id": new_id("req")}, **(headers or {})))


def response_object(body, status, output, usage, error=None):
    return {"id": new_id("resp"), "object": "response", "created_at": int(time.time()), "status": status,
            "error": error, "incomplete_details": None, "instructions": None, "model": body.get("model") or "gpt-test",
            "output": output, "parallel_tool_calls": True, "previous_response_id": None, "store": False,
            "tool_choice": "auto", "tools": [], "usage": usage}


def send_response(h, body, step):
    items = items_of(step)
    usage = usage_of(step)
    if not body.get("stream"):
        h.send_json(200, response_object(body, "completed", items, usage), {"x-request-id": new_id("req")})
        return
    seq = count(0)

    def ev(kind, **fields):
        h.sse(dict({"type": kind, "sequence_number": next(seq)}, **fields), kind)

    h.start_sse({"x-request-id": new_id("req")})
    resp = response_object(body, "in_progress", [], None)
    ev("response.created", response=resp)
    ev("response.in_progress", response=resp)
    if "stream_error" in step:
        error = dict(step["stream_error"] or {})
        error.setdefault("code", "rate_limit_exceeded")
        error.setdefault("message", ERRORS[429][2])
        ev("response.failed", response=dict(resp, status="failed", error=error))
        h.end_sse()
        return
    for i, item in enumerate(items):
        if item["type"] == "message":
            text = item["content"][0]["text"]
            ev("response.output_item.added", output_index=i, item=dict(item, status="in_progress", content=[]))
            part = {"type": "output_text", "text": "", "annotations": []}
            ev("response.content_part.added", item_id=item["id"], output_index=i, content_index=0, part=part)
            half = len(text) // 2
            for piece in (text[:half], text[half:]):
                ev("response.output_text.delta", item_id=item["id"], output_index=i, content_index=0, delta=piece)
            ev("response.output_text.done", item_id=item["id"], output_index=i, content_index=0, text=text)
            ev("response.content_part.done", item_id=item["id"], output_index=i, content_index=0,
               part=dict(part, text=text))
        elif item["type"] == "function_call":
            ev("response.output_item.added", output_index=i, item=dict(item, status="in_progress", arguments=""))
            ev("response.function_call_arguments.delta", item_id=item["id"], output_index=i, delta=item["arguments"])
            ev("response.function_call_arguments.done", item_id=item["id"], output_index=i,
               arguments=item["arguments"])
        else:
            ev("response.output_item.added", output_index=i, item=dict(item, status="in_progress", input=""))
            ev("response.custom_tool_call_input.delta", item_id=item["id"], output_index=i, delta=item["input"])
            ev("response.custom_tool_call_input.done", item_id=item["id"], output_index=i, input=item["input"])
        ev("response.output_item.done", output_index=i, item=item)
    ev("response.completed", response=dict(resp, status="completed", output=items, usage=usage))
    h.end_sse()


def answer_step(h, body, i, step, kind, exhausted):
    if "stream_error" in step and not body.get("stream"):  # the matching HTTP error instead
        error = dict(step["stream_error"] or {})
        error.setdefault("code", "rate_limit_exceeded")
        step = {"status": 429 if error["code"] == "rate_limit_exceeded" else 500, "error": error}
    if step.get("status") and step["status"] != 200:
        h.log(kind, i, "status %d" % step["status"])
        send_error(h, step["status"], step.get("error"), step.get("headers"))
        return
    what = "stream_error" if "stream_error" in step and body.get("stream") else \
        "tool_use" if step.get("tool_use") else "text"
    h.log(kind, i, what, **({"exhausted": True} if exhausted else {}))
    send_response(h, body, step)


def route(h, method, path, body):
    p = path.split("?")[0]
    body = body if isinstance(body, dict) else {}
    if method == "POST" and p == "/v1/responses":
        if body.get("tools"):
            i, step, exhausted = scriptlib.main_step(h)
            answer_step(h, body, i, step, "main", exhausted)
        else:
            answer_step(h, body, None, {"text": "Scripted side answer", "usage": {
                "input_tokens": 10, "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0}, "output_tokens": 3,
                "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 13}}, "side", False)
        return
    if method in ("GET", "HEAD") and p == "/v1/models":
        h.log("side", None, "models")
        h.send_json(200, {"object": "list", "data": [{"id": "gpt-test", "object": "model", "created": 0,
                                                      "owned_by": "scripted"}], "models": []})
        return
    h.log("unknown", None, "status 404")
    send_error(h, 404, {"message": "scripted server: no route for %s %s" % (method, p), "type": "invalid_request_error"})


if __name__ == "__main__":
    scriptlib.serve("a scripted OpenAI Responses API server (see the comment at its top)", route)
