#!/usr/bin/env python3
# tests/servers/anthropic_server.py — a scripted Anthropic Messages API server on 127.0.0.1 for driving Claude Code.
#
#   anthropic_server.py --port-file FILE --log FILE [--script FILE]
# Point Claude Code at it with ANTHROPIC_BASE_URL=http://127.0.0.1:PORT (and any ANTHROPIC_API_KEY). The script
# and the log are described in scriptlib.py. It serves:
#   POST /v1/messages               main requests (those offering tools) take the next step; answered as SSE
#                                   when the body says "stream": true, else as one JSON message
#   POST /v1/messages (no tools)    side requests (title, topic, summaries): a short fixed text, no step used
#   POST /v1/messages/count_tokens  {"input_tokens": N}, N from the body's size
#   GET  /v1/models[/ID]            one model, the one asked for or "claude-test"
# and answers anything else 404 with Anthropic's error shape (logged, so an unexpected call shows up).
# Steps: "text", "tool_use" ({"name", "input"} or a list; Claude Code's tools are Bash, Edit, Write, Read, ...),
# "status" + "error" {"type", "message"} + "headers", "stream_error" {"type", "message"} (an SSE "error" event
# after message_start, as the API sends for overloaded_error mid-stream; a request that does not stream gets
# the matching HTTP error instead), "stop_reason", "usage" (below).
import json
import re
import sys
from itertools import count

sys.dont_write_bytecode = True  # no __pycache__ beside the servers in the source tree
import scriptlib  # noqa: E402

# Reported in message_start (input and cache fields) and message_delta (output_tokens) unless a step says otherwise.
DEFAULT_USAGE = {"input_tokens": 120, "cache_creation_input_tokens": 400, "cache_read_input_tokens": 5000,
                 "output_tokens": 30}

# The error type the API gives for each status (https://docs.anthropic.com/en/api/errors).
ERROR_TYPES = {400: "invalid_request_error", 401: "authentication_error", 402: "billing_error",
               403: "permission_error", 404: "not_found_error", 413: "request_too_large",
               429: "rate_limit_error", 500: "api_error", 504: "timeout_error", 529: "overloaded_error"}
ERROR_MESSAGES = {401: "invalid x-api-key", 429: "This request would exceed the rate limit for your organization "
                  "of 50 requests per minute. Please try again later.", 529: "Overloaded", 500: "Internal server error"}

IDS = count(1)


def new_id(prefix):
    return "%s_%06d" % (prefix, next(IDS))


def usage_of(step):
    u = dict(DEFAULT_USAGE)
    u.update(step.get("usage") or {})
    return u


def content_of(step):
    """The step's content blocks: its text (if any) and then its tool calls."""
    blocks = []
    if step.get("text") is not None:
        blocks.append({"type": "text", "text": step["text"]})
    for t in scriptlib.tool_uses(step):
        blocks.append({"type": "tool_use", "id": new_id("toolu"), "name": t["name"], "input": t.get("input", {})})
    return blocks


def send_error(h, status, error=None, headers=None):
    error = dict(error or {})
    error.setdefault("type", ERROR_TYPES.get(status, "api_error"))
    error.setdefault("message", ERROR_MESSAGES.get(status, "error %d" % status))
    rid = new_id("req")
    h.send_json(status, {"type": "error", "error": error, "request_id": rid}, dict({"request-id": rid}, **(headers or {})))


def send_message(h, body, step, kind):
    model = body.get("model") or "claude-test"
    blocks = content_of(step)
    usage = usage_of(step)
    stop = step.get("stop_reason") or ("tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn")
    msg = {"id": new_id("msg"), "type": "message", "role": "assistant", "model": model, "content": blocks,
           "stop_reason": stop, "stop_sequence": None, "usage": usage}
    headers = {"request-id": new_id("req")}
    if not body.get("stream"):
        h.send_json(200, msg, headers)
        return
    h.start_sse(headers)
    start = dict(msg, content=[], stop_reason=None, usage=dict(usage, output_tokens=1))
    h.sse({"type": "message_start", "message": start}, "message_start")
    if "stream_error" in step:
        error = dict(step["stream_error"] or {})
        error.setdefault("type", "overloaded_error")
        error.setdefault("message", "Overloaded")
        h.sse({"type": "error", "error": error}, "error")
        h.end_sse()
        return
    h.sse({"type": "ping"}, "ping")
    for i, b in enumerate(blocks):
        if b["type"] == "text":
            h.sse({"type": "content_block_start", "index": i, "content_block": {"type": "text", "text": ""}},
                  "content_block_start")
            # Two deltas, so a client that joins them is seen doing it.
            half = len(b["text"]) // 2
            for piece in (b["text"][:half], b["text"][half:]):
                h.sse({"type": "content_block_delta", "index": i, "delta": {"type": "text_delta", "text": piece}},
                      "content_block_delta")
        else:
            h.sse({"type": "content_block_start", "index": i,
                   "content_block": {"type": "tool_use", "id": b["id"], "name": b["name"], "input": {}}},
                  "content_block_start")
            h.sse({"type": "content_block_delta", "index": i,
                   "delta": {"type": "input_json_delta", "partial_json": json.dumps(b["input"])}},
                  "content_block_delta")
        h.sse({"type": "content_block_stop", "index": i}, "content_block_stop")
    h.sse({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
           "usage": {"output_tokens": usage["output_tokens"]}}, "message_delta")
    h.sse({"type": "message_stop"}, "message_stop")
    h.end_sse()


# The HTTP status of a stream_error step met by a request that does not stream (Claude Code falls back to one).
STREAM_ERROR_STATUS = {"overloaded_error": 529, "rate_limit_error": 429, "api_error": 500}


def answer_step(h, body, i, step, kind, exhausted):
    if "stream_error" in step and not body.get("stream"):
        error = dict(step["stream_error"] or {})
        error.setdefault("type", "overloaded_error")
        step = {"status": STREAM_ERROR_STATUS.get(error["type"], 500), "error": error}
    if step.get("status") and step["status"] != 200:
        h.log(kind, i, "status %d" % step["status"])
        send_error(h, step["status"], step.get("error"), step.get("headers"))
        return
    what = "stream_error" if "stream_error" in step and body.get("stream") else \
        "tool_use" if step.get("tool_use") else "text"
    h.log(kind, i, what, **({"exhausted": True} if exhausted else {}))
    send_message(h, body, step, kind)


def route(h, method, path, body):
    p = path.split("?")[0]
    body = body if isinstance(body, dict) else {}
    if method == "POST" and p == "/v1/messages":
        if body.get("tools"):
            i, step, exhausted = scriptlib.main_step(h)
            answer_step(h, body, i, step, "main", exhausted)
        else:
            answer_step(h, body, None, {"text": "Scripted side answer", "usage": {
                "input_tokens": 10, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0,
                "output_tokens": 3}}, "side", False)
        return
    if method == "POST" and p == "/v1/messages/count_tokens":
        h.log("side", None, "count_tokens")
        h.send_json(200, {"input_tokens": len(json.dumps(body)) // 4})
        return
    m = re.fullmatch(r"/v1/models(?:/([^/]+))?", p)
    if method in ("GET", "HEAD") and m:
        h.log("side", None, "models")
        model = {"type": "model", "id": m.group(1) or "claude-test", "display_name": "Claude (scripted)",
                 "created_at": "2025-01-01T00:00:00Z"}
        h.send_json(200, model if m.group(1) else {"data": [model], "has_more": False, "first_id": model["id"],
                                                   "last_id": model["id"]})
        return
    h.log("unknown", None, "status 404")
    send_error(h, 404, {"message": "scripted server: no route for %s %s" % (method, p)})


if __name__ == "__main__":
    scriptlib.serve("a scripted Anthropic Messages API server (see the comment at its top)", route)
