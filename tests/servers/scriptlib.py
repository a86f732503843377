# tests/servers/scriptlib.py — what the scripted model servers share: options, the script, the request log, SSE.
#
# anthropic_server.py, openai_responses_server.py and gemini_server.py each speak one vendor's wire format to
# a real agent CLI; this module holds the rest. A *script* is a JSON file holding a list of *steps*, given in
# order, one per "main" request (a turn of the agent's own conversation; the side requests a client makes,
# such as title generation or token counting, get a fixed sensible answer and consume nothing):
#
#   {"text": "Done."}                                       a reply that ends the turn
#   {"tool_use": {"name": "Bash", "input": {...}}}          a tool call (or a list of them), optionally with "text"
#   {"status": 429, "headers": {"retry-after": "1"},        an HTTP error; "error" fills the vendor's error object
#    "error": {"type": "rate_limit_error", "message": "..."}}   (type/message/code/status as that vendor uses them)
#   {"stream_error": {"type": "overloaded_error"}}          HTTP 200, then an error event inside the stream
#
#   {"text_from": "/abs/file"}                               a reply read from that file when the step is answered
#                                                           (a file the model's own tool call wrote: a report naming
#                                                           the commit hash it just made)
# Any step may also carry "times": N (give it N requests in a row), "forever": true (every request from then on),
# "delay": SECONDS (wait before answering) and "usage": {...} (token counts to report, in the server's own
# vocabulary; see each server's DEFAULT_USAGE). A step {"hold": true} never answers: its request is logged at
# once (answer "held") and the connection is held open until the client closes it (a test waits for that log
# line, then kills the agent mid-round: the client is known to be waiting on the model). Once the script is used up, main requests get the text
# "(script exhausted)", which ends the agent's turn, and the log line says "exhausted": true.
#
# Every request is written to --log as one JSON line before it is answered:
#   {"n": 1, "t": SECONDS_SINCE_START, "method", "path", "headers": {...all...}, "body": parsed JSON or text,
#    "kind": "main" | "side" | "unknown", "step": INDEX or null, "answer": "text" | "tool_use" | "status 429" | ...}
# Each server binds a free port on 127.0.0.1 and writes it to --port-file (atomically) once listening.
import argparse
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

START = time.monotonic()


class Script:
    """The steps of a script, handed out in order to main requests (thread-safe)."""

    def __init__(self, path):
        self.steps = []
        if path:
            with open(path) as f:
                self.steps = json.load(f)
            if not isinstance(self.steps, list) or not all(isinstance(s, dict) for s in self.steps):
                sys.exit("%s: a script is a JSON list of objects" % path)
        self.pos = 0       # the step given next
        self.used = 0      # how many requests the step at pos has had
        self.lock = threading.Lock()

    def next(self):
        """(index, step) for the next main request, or (None, None) when the script is used up."""
        with self.lock:
            if self.pos >= len(self.steps):
                return None, None
            i, step = self.pos, self.steps[self.pos]
            self.used += 1
            if not step.get("forever") and self.used >= int(step.get("times", 1)):
                self.pos, self.used = self.pos + 1, 0
            return i, step


class Log:
    def __init__(self, path):
        self.path = path
        self.lock = threading.Lock()
        self.n = 0

    def write(self, record):
        with self.lock:
            self.n += 1
            record = dict({"n": self.n, "t": round(time.monotonic() - START, 3)}, **record)
            with open(self.path, "a") as f:
                f.write(json.dumps(record, ensure_ascii=False) + "\n")


class Handler(BaseHTTPRequestHandler):
    """Reads the request, then calls server.route(handler, method, path, body); route answers with the helpers."""
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out in separate writes; no delayed-ACK stalls

    def log_message(self, *args):
        pass

    def read_body(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            raw = b""
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    self.rfile.readline()
                    break
                raw += self.rfile.read(size)
                self.rfile.readline()
        else:
            raw = self.rfile.read(int(self.headers.get("Content-Length", "0") or 0))
        if self.headers.get("Content-Encoding", "").lower() == "zstd":
            return {"undecoded": "zstd", "bytes": len(raw)}
        if self.headers.get("Content-Encoding", "").lower() == "gzip":
            import gzip
            raw = gzip.decompress(raw)
        text = raw.decode("utf-8", "replace")
        if not text:
            return None
        try:
            return json.loads(text)
        except ValueError:
            return text

    def handle_any(self, method):
        body = self.read_body() if method in ("POST", "PUT", "PATCH") else None
        self.record = {"method": method, "path": self.path, "headers": dict(self.headers.items()), "body": body}
        try:
            self.server.route(self, method, self.path, body)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def do_GET(self):
        self.handle_any("GET")

    def do_POST(self):
        self.handle_any("POST")

    def do_HEAD(self):
        self.handle_any("HEAD")

    def do_DELETE(self):
        self.handle_any("DELETE")

    # --- answering: each helper logs the request first, with what it is about to answer ---------------------

    def log(self, kind, step, answer, **extra):
        self.server.log.write(dict(self.record, kind=kind, step=step, answer=answer, **extra))

    def send_json(self, status, obj, headers=None):
        body = json.dumps(obj, ensure_ascii=False).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for name, value in (headers or {}).items():
            self.send_header(name, str(value))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def start_sse(self, headers=None):
        """Starts a 200 text/event-stream answer, chunked so the connection can be kept."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        for name, value in (headers or {}).items():
            self.send_header(name, str(value))
        self.end_headers()

    def sse(self, data, event=None):
        """One server-sent event: "event: NAME" (when given) and "data: JSON"."""
        text = ("event: %s\n" % event if event else "") + "data: %s\n\n" % json.dumps(data, ensure_ascii=False)
        self.chunk(text)

    def chunk(self, text):
        """Bytes of a chunked answer, as they are (an SSE event, or what a server sends outside SSE)."""
        data = text.encode()
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def end_sse(self):
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256

    def __init__(self, args, route):
        super().__init__(("127.0.0.1", 0), Handler)
        self.args = args
        self.script = Script(args.script)
        self.log = Log(args.log)
        self.route = route


def main_step(h):
    """The next step for handler h's main request: (index, step, exhausted). Waits the step's "delay"; a "hold"
    step is logged and held until the client goes away, then ends the request (ConnectionResetError)."""
    i, step = h.server.script.next()
    if step is None:
        return None, {"text": "(script exhausted)"}, True
    if step.get("hold"):
        h.log("main", i, "held")
        while h.connection.recv(4096):
            pass
        raise ConnectionResetError("the client closed a held request")
    if step.get("delay"):
        time.sleep(float(step["delay"]))
    if step.get("text_from"):
        step = dict(step)
        try:
            with open(step["text_from"]) as f:
                step["text"] = f.read()
        except OSError as e:
            step["text"] = "(text_from: %s)" % e
    return i, step, False


def tool_uses(step):
    """The step's tool calls as a list (its "tool_use" may be one object or a list)."""
    t = step.get("tool_use")
    if t is None:
        return []
    return t if isinstance(t, list) else [t]


def serve(description, route):
    """Parses the common options, starts the server, writes the port file, serves until killed."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--port-file", required=True, help="the bound port is written here once listening")
    parser.add_argument("--log", required=True, help="one JSON line per request is appended here")
    parser.add_argument("--script", help="a JSON list of steps (see tests/servers/scriptlib.py)")
    args = parser.parse_args()
    server = Server(args, route)
    with open(args.port_file + ".tmp", "w") as f:
        f.write(str(server.server_address[1]))
    os.rename(args.port_file + ".tmp", args.port_file)
    server.serve_forever()
