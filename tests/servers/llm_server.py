#!/usr/bin/env python3
# tests/servers/llm_server.py — a real OpenAI-compatible chat-completions server on 127.0.0.1 for rtk's tests.
#
# It answers POST .../chat/completions according to markers found in the request body (the task id of
# the trace travels in the prompt): "mode=NAME" picks the behaviour, "lesson=WORD" the lesson text,
# "delay=SECONDS" a wait before answering. Every request is recorded as one JSON line in --log
# (path, Authorization header, parsed body) so tests can check what rtk actually sent.
#
# "barrier=N" holds a request until N requests of its group (the 1st to Nth, the N+1th to 2Nth, ...)
# have arrived, so a test sees that N ran at once by an event, not by the clock; its lesson then ends in
# "inflightK", K being how many were in flight when it arrived. A group never filled is answered 504
# after --hang-guard seconds (default 600), so a broken client fails instead of hanging.
#
#   llm_server.py --port-file FILE --log FILE [--delay SECONDS] [--hang-guard SECONDS]
# It binds a free port, writes it to --port-file once listening, and serves until killed.
import argparse
import os
import email.utils
import hashlib
import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ARGS = None
LOG_LOCK = threading.Lock()
COUNTS = {}
COUNTS_LOCK = threading.Lock()
BARRIER = threading.Condition()
BARRIER_STATE = {"arrived": 0, "inflight": 0}


def verdict(kind, lesson):
    if kind == "ERROR":
        return {"type": "ERROR", "outcome": "FAILURE", "lesson": lesson, "root_cause": "wrong_assumption",
                "reusable_experience": "Check the assumption before acting on it."}
    if kind == "PREFERENCE":
        return {"type": "PREFERENCE", "outcome": "PARTIAL", "lesson": lesson, "root_cause": None,
                "reusable_experience": None}
    return {"type": "NONE", "outcome": "SUCCESS", "lesson": lesson, "root_cause": None, "reusable_experience": None}


def completion(content):
    return {"id": "chatcmpl-test", "object": "chat.completion", "model": "test",
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}]}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body go out in two writes; with Nagle on, the second waits for a delayed ACK (40 ms).
    disable_nagle_algorithm = True

    def log_message(self, *args):
        pass

    def send(self, status, body, ctype="application/json", headers=()):
        if not isinstance(body, bytes):
            body = json.dumps(body, ensure_ascii=False).encode()
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        try:
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def do_POST(self):
        raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        text = raw.decode("utf-8", "replace")
        try:
            body = json.loads(text)
        except ValueError:
            body = text
        with LOG_LOCK, open(ARGS.log, "a") as log:
            log.write(json.dumps({"path": self.path, "authorization": self.headers.get("Authorization"),
                                  "content_type": self.headers.get("Content-Type"), "body": body},
                                 ensure_ascii=False) + "\n")
        marker = re.search(r"mode=([a-z0-9_]+)", text)
        mode = marker.group(1) if marker else "none"
        lesson = re.search(r"lesson=([A-Za-z0-9_-]+)", text)
        lesson = ("Lesson " + lesson.group(1)) if lesson else "Lesson " + hashlib.sha1(raw).hexdigest()[:10]
        delay = re.search(r"delay=([0-9.]+)", text)
        wait = float(delay.group(1)) if delay else ARGS.delay
        if wait:
            time.sleep(wait)
        key = hashlib.sha1(raw).hexdigest()
        with COUNTS_LOCK:
            COUNTS[key] = seen = COUNTS.get(key, 0) + 1
        barrier = re.search(r"barrier=([0-9]+)", text)
        if barrier:
            size = int(barrier.group(1))
            with BARRIER:
                BARRIER_STATE["arrived"] += 1
                BARRIER_STATE["inflight"] += 1
                arrival, inflight = BARRIER_STATE["arrived"], BARRIER_STATE["inflight"]
                full = -(-arrival // size) * size
                BARRIER.notify_all()
                met = BARRIER.wait_for(lambda: BARRIER_STATE["arrived"] >= full, timeout=ARGS.hang_guard)
                # out of flight before the answer is written: the client may send the next at once
                BARRIER_STATE["inflight"] -= 1
            if not met:
                return self.send(504, {"error": {"message": "barrier=%d: the group never filled" % size}})
            lesson += " inflight%d" % inflight
        self.answer(mode, lesson, seen)

    def answer(self, mode, lesson, seen):
        ok = lambda kind: self.send(200, completion(json.dumps(verdict(kind, lesson), ensure_ascii=False)))
        if mode in ("none", "error", "preference"):
            return ok(mode.upper())
        if mode == "error_badcause":
            v = verdict("ERROR", lesson)
            v["root_cause"] = "bad_luck"
            return self.send(200, completion(json.dumps(v)))
        if mode == "pref_with_cause":
            v = verdict("PREFERENCE", lesson)
            v["root_cause"] = "tool_misuse"
            return self.send(200, completion(json.dumps(v)))
        if mode == "badtype":
            v = verdict("ERROR", lesson)
            v["type"] = "MAYBE"
            return self.send(200, completion(json.dumps(v)))
        if mode == "prose":
            content = ("Let me think {briefly} about it.\n```json\n" + json.dumps(verdict("ERROR", lesson), indent=2)
                       + "\n```\nHope that helps.")
            return self.send(200, completion(content))
        if mode == "nojson":
            return self.send(200, completion("I am not sure what went wrong here."))
        if mode == "notjson_body":
            return self.send(200, b"<html><body>Bad Gateway</body></html>", "text/html")
        if mode == "error_object":
            return self.send(400, {"error": {"code": 400, "message": "API key not valid. Please pass a valid API key.",
                                             "status": "INVALID_ARGUMENT"}})
        if mode == "error_array":
            return self.send(400, [{"error": {"code": 400, "message": "Invalid JSON payload received.",
                                              "status": "INVALID_ARGUMENT"}}])
        if mode == "error_in_200":
            return self.send(200, {"error": {"message": "model overloaded", "type": "server_error"}})
        if mode == "retry_after_hour" and seen == 1:
            return self.send(429, {"error": {"message": "come back later"}}, headers=[("Retry-After", "3600")])
        if mode == "retry_after" and seen == 1:
            return self.send(429, {"error": {"message": "slow down"}}, headers=[("Retry-After", "1")])
        if mode == "retry_date" and seen == 1:
            when = email.utils.formatdate(time.time() + 2, usegmt=True)
            return self.send(503, {"error": {"message": "busy"}}, headers=[("Retry-After", when)])
        if mode == "gemini_delay" and seen == 1:
            return self.send(429, [{"error": {"code": 429, "status": "RESOURCE_EXHAUSTED", "details": [
                {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "1s"}]}}])
        if mode in ("retry_after", "retry_after_hour", "retry_date", "gemini_delay"):
            return ok("PREFERENCE")
        if mode == "always429":
            return self.send(429, {"error": {"message": "quota exceeded"}})
        if mode == "http500":
            return self.send(500, b"internal error", "text/plain")
        if mode == "stall":
            time.sleep(20)
            return ok("NONE")
        if mode == "huge":
            return self.send(200, b'{"choices":[{"message":{"content":"' + b"x" * (20 << 20) + b'"}}]}')
        if mode == "badutf8":
            body = json.dumps(completion(json.dumps(verdict("PREFERENCE", "bad@@bytes")))).encode()
            return self.send(200, body.replace(b"@@", b"\xff\xfe"))
        return self.send(404, {"error": {"message": "unknown mode " + mode}})


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256


def main():
    global ARGS
    parser = argparse.ArgumentParser()
    parser.add_argument("--port-file", required=True)
    parser.add_argument("--log", required=True)
    parser.add_argument("--delay", type=float, default=0)
    parser.add_argument("--hang-guard", type=float, default=600)
    ARGS = parser.parse_args()
    server = Server(("127.0.0.1", 0), Handler)
    with open(ARGS.port_file + ".tmp", "w") as f:
        f.write(str(server.server_address[1]))
    os.rename(ARGS.port_file + ".tmp", ARGS.port_file)
    server.serve_forever()


if __name__ == "__main__":
    main()
