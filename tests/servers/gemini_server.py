#!/usr/bin/env python3
# tests/servers/gemini_server.py — a scripted Gemini API (generativelanguage v1beta) server on 127.0.0.1 for Gemini CLI.
#
#   gemini_server.py --port-file FILE --log FILE [--script FILE]
# Point Gemini CLI at it with GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:PORT and GEMINI_API_KEY=anything (see
# tests/agents/FINDINGS.md). The script and the log are described in scriptlib.py. It serves:
#   POST /v1beta/models/M:streamGenerateContent   main requests (those offering tools) take the next step,
#                                                  answered as SSE ("?alt=sse") or a JSON array of chunks
#   POST /v1beta/models/M:generateContent          the same, one JSON response
#   either of them without tools                   side requests (the model router's classifier, the
#                                                  next-speaker check, ...): when the request asks for JSON
#                                                  (responseMimeType application/json), an object filled in
#                                                  from its schema, else a short fixed text; no step used
#   POST /v1beta/models/M:countTokens              {"totalTokens": N}
#   GET  /v1beta/models[/M]                        one model
# and answers anything else 404 with Google's error shape (logged).
# Steps: "text"; "tool_use" ({"name", "input"} or a list, sent as functionCall parts: Gemini CLI's tools are
# run_shell_command, write_file, replace, read_file, ...); "status" + "error" {"message", "status",
# "details"} + "headers" ("retry_delay": "2s" adds a google.rpc.RetryInfo detail, as quota errors carry);
# "stream_error" (HTTP 200, then a bare error object in the stream; without ?alt=sse, the matching HTTP
# error); "usage" (usageMetadata fields, below).
import json
import re
import sys
from itertools import count

sys.dont_write_bytecode = True  # no __pycache__ beside the servers in the source tree
import scriptlib  # noqa: E402

DEFAULT_USAGE = {"promptTokenCount": 5120, "cachedContentTokenCount": 5000, "candidatesTokenCount": 30,
                 "thoughtsTokenCount": 10, "totalTokenCount": 5160}
SIDE_USAGE = {"promptTokenCount": 10, "cachedContentTokenCount": 0, "candidatesTokenCount": 3, "thoughtsTokenCount": 0,
              "totalTokenCount": 13}

# Google's canonical status names for each HTTP status.
STATUSES = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 404: "NOT_FOUND",
            429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 503: "UNAVAILABLE", 504: "DEADLINE_EXCEEDED"}
MESSAGES = {400: "API key not valid. Please pass a valid API key.",
            401: "Request had invalid authentication credentials.",
            429: "You exceeded your current quota, please check your plan and billing details.",
            500: "An internal error has occurred.", 503: "The model is overloaded. Please try again later.",
            529: "The model is overloaded. Please try again later."}

IDS = count(1)


def usage_of(step):
    u = dict(DEFAULT_USAGE)
    u.update(step.get("usage") or {})
    return u


def error_object(status, error=None):
    error = dict(error or {})
    delay = error.pop("retry_delay", None)
    error.setdefault("code", status)
    error.setdefault("message", MESSAGES.get(status, "error %d" % status))
    error.setdefault("status", STATUSES.get(status, "UNAVAILABLE" if status >= 500 else "UNKNOWN"))
    if delay:
        error.setdefault("details", []).append({"@type": "type.googleapis.com/google.rpc.RetryInfo",
                                                "retryDelay": delay})
    return {"error": error}


def fill(schema):
    """A value that satisfies a (simple) JSON schema: the first enum value, "scripted", the minimum or 1, false."""
    if not isinstance(schema, dict):
        return None
    if "enum" in schema:
        return schema["enum"][0]
    t = schema.get("type")
    t = (t[0] if isinstance(t, list) else t or "object").lower()
    if t == "object":
        return {k: fill(v) for k, v in (schema.get("properties") or {}).items()}
    if t == "array":
        return []
    if t in ("number", "integer"):
        return schema.get("minimum", 1)
    if t == "boolean":
        return False
    return "scripted"


def parts_of(step):
    parts = []
    if step.get("text") is not None:
        parts.append({"text": step["text"]})
    for t in scriptlib.tool_uses(step):
        parts.append({"functionCall": {"name": t["name"], "args": t.get("input", {})}})
    return parts


def response(model, parts, usage, finish="STOP"):
    return {"candidates": [{"content": {"parts": parts, "role": "model"}, "finishReason": finish, "index": 0}],
            "usageMetadata": usage, "modelVersion": model, "responseId": "resp-%06d" % next(IDS)}


def send(h, model, method, step, sse):
    """Answers a generate request with the step's parts (two chunks when streaming: text, then the rest)."""
    parts = parts_of(step)
    usage = usage_of(step)
    if method == "generateContent":
        h.send_json(200, response(model, parts, usage))
        return
    # Streaming: the first chunk carries the text without a finish reason, the last the calls and usage.
    chunks = []
    if parts and "text" in parts[0] and len(parts) > 1:
        chunks.append({"candidates": [{"content": {"parts": [parts[0]], "role": "model"}, "index": 0}],
                       "modelVersion": model})
        parts = parts[1:]
    chunks.append(response(model, parts, usage))
    if not sse:
        h.send_json(200, chunks)
        return
    h.start_sse()
    if "stream_error" in step:
        # In place of the first chunk, the error object bare (not an SSE event), as the API sends one met
        # mid-stream; @google/genai raises an ApiError only for a network chunk that is such a JSON object.
        error = step["stream_error"] or {}
        h.chunk(json.dumps(error_object(int(error.get("code", 503)), error)))
    else:
        for c in chunks:
            h.sse(c)
    h.end_sse()


def route(h, method, path, body):
    p, _, query = path.partition("?")
    body = body if isinstance(body, dict) else {}
    m = re.fullmatch(r"/v1(?:beta|alpha)?/models/([^/:]+):([A-Za-z]+)", p)
    if method == "POST" and m and m.group(2) in ("generateContent", "streamGenerateContent"):
        model, what = m.group(1), m.group(2)
        sse = "alt=sse" in query
        if body.get("tools"):
            i, step, exhausted = scriptlib.main_step(h)
            kind = "main"
        else:
            i, exhausted, kind = None, False, "side"
            config = body.get("generationConfig") or {}
            if config.get("responseMimeType") == "application/json":
                schema = config.get("responseJsonSchema") or config.get("responseSchema") or {}
                step = {"text": json.dumps(fill(schema)), "usage": SIDE_USAGE}
            else:
                step = {"text": "Scripted side answer", "usage": SIDE_USAGE}
        if "stream_error" in step and not sse:  # the matching HTTP error instead
            error = dict(step["stream_error"] or {})
            step = {"status": int(error.get("code", 503)), "error": error}
        if step.get("status") and step["status"] != 200:
            h.log(kind, i, "status %d" % step["status"])
            h.send_json(step["status"], error_object(step["status"], step.get("error")), step.get("headers"))
            return
        answer = "stream_error" if "stream_error" in step else "tool_use" if step.get("tool_use") else "text"
        h.log(kind, i, answer, **({"exhausted": True} if exhausted else {}))
        send(h, model, what, step, sse)
        return
    if method == "POST" and m and m.group(2) == "countTokens":
        h.log("side", None, "countTokens")
        h.send_json(200, {"totalTokens": len(json.dumps(body)) // 4})
        return
    m = re.fullmatch(r"/v1(?:beta|alpha)?/models(?:/([^/:]+))?", p)
    if method in ("GET", "HEAD") and m:
        h.log("side", None, "models")
        model = {"name": "models/" + (m.group(1) or "gemini-test"), "displayName": "Gemini (scripted)",
                 "inputTokenLimit": 1048576, "outputTokenLimit": 65536,
                 "supportedGenerationMethods": ["generateContent", "countTokens"]}
        h.send_json(200, model if m.group(1) else {"models": [model]})
        return
    h.log("unknown", None, "status 404")
    h.send_json(404, error_object(404, {"message": "scripted server: no route for %s %s" % (method, p)}))


if __name__ == "__main__":
    scriptlib.serve("a scripted Gemini API server (see the comment at its top)", route)
