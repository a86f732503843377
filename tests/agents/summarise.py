#!/usr/bin/env python3
# tests/agents/summarise.py — what one probe run showed, as one JSON line; or the markdown tables of a summary.jsonl.
#
#   summarise.py RUN_DIR CLIENT CASE MODE    one JSON line about OUT_DIR/CLIENT/CASE-MODE (see probe.sh)
#   summarise.py --table SUMMARY_JSONL       markdown: one table per client, a row per run
#
# The line holds: rc and seconds (and rc2/seconds2 for a resume's second run), the requests the server saw
# (main and side counts, the times of main requests, paths of side and unknown requests), the first and last
# lines of stdout and stderr, the final JSON object of stdout (trimmed to the fields the agent profiles need),
# the event types of a JSONL stdout, whether the plan item was ticked and hello.txt made, the tool results
# the client sent back to the model, whether a resumed run carried the first run's conversation, and the
# Stop hook's payload.
import json
import os
import sys

CUT = 400


def cut(s, n=CUT):
    s = s.rstrip("\n")
    return s if len(s) <= n else s[:n] + "…"


def read(path, default=""):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return default


def lines_of(text):
    lines = [l for l in text.splitlines() if l.strip()]
    return {"lines": len(lines), "first": cut(lines[0]) if lines else None, "last": cut(lines[-1]) if lines else None}


def json_values(text):
    """The JSON values of a stdout: the whole text if it is one value (Gemini's pretty JSON), else each line's."""
    try:
        return [json.loads(text)]
    except ValueError:
        pass
    values = []
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("{"):
            try:
                values.append(json.loads(line))
            except ValueError:
                pass
    return values


# Fields of a final object worth keeping whole; anything else scalar is kept too, big things are dropped.
KEEP = {"usage", "modelUsage", "error", "stats", "permission_denials"}


def trim(obj):
    if not isinstance(obj, dict):
        return obj
    out = {}
    for k, v in obj.items():
        if k in KEEP:
            out[k] = v
        elif isinstance(v, (str, int, float, bool)) or v is None:
            out[k] = cut(v) if isinstance(v, str) else v
        elif isinstance(v, dict) and len(json.dumps(v)) < 600:
            out[k] = v
    if "stats" in out and isinstance(out["stats"], dict):  # Gemini: per-model tokens only
        models = out["stats"].get("models") or {}
        out["stats"] = {"models": {m: {"api": v.get("api"), "tokens": v.get("tokens")} for m, v in models.items()}}
    return out


def tool_results(req):
    """The tool results a request carries back to the model (the newest turn only)."""
    body = req.get("body") or {}
    if not isinstance(body, dict):
        return []
    res = []
    if "messages" in body:  # Anthropic
        last = body["messages"][-1] if body["messages"] else {}
        for c in last.get("content") or []:
            if isinstance(c, dict) and c.get("type") == "tool_result":
                content = c.get("content")
                if isinstance(content, list):
                    content = " ".join(x.get("text", "") for x in content if isinstance(x, dict))
                res.append({"is_error": c.get("is_error"), "content": cut(str(content), 300)})
    elif "input" in body and isinstance(body["input"], list):  # OpenAI Responses
        items = body["input"]
        i = len(items)
        while i > 0 and items[i - 1].get("type", "").endswith("_output"):
            i -= 1
        for it in items[i:]:
            out = it.get("output")
            res.append({"type": it.get("type"), "content": cut(out if isinstance(out, str) else json.dumps(out), 300)})
    elif "contents" in body:  # Gemini
        last = body["contents"][-1] if body["contents"] else {}
        for p in last.get("parts") or []:
            if "functionResponse" in p:
                res.append({"name": p["functionResponse"].get("name"),
                            "content": cut(json.dumps(p["functionResponse"].get("response")), 300)})
    return res


def summarise(d, client, case, mode):
    s = {"client": client, "case": case, "mode": mode}
    for sfx, key in (("", ""), (".2", "2")):
        if not os.path.exists(os.path.join(d, "rc" + sfx)):
            continue
        s["rc" + key] = int(read(os.path.join(d, "rc" + sfx), "-1").strip() or -1)
        s["seconds" + key] = round(float(read(os.path.join(d, "seconds" + sfx), "0").strip() or 0), 2)
        stdout = read(os.path.join(d, "stdout" + sfx))
        stderr = read(os.path.join(d, "stderr" + sfx))
        s["stdout" + key] = lines_of(stdout)
        s["stderr" + key] = lines_of(stderr)
        values = [v for v in json_values(stdout) if isinstance(v, dict)]
        if values:
            s["final" + key] = trim(values[-1])
            if len(values) > 1:
                types = []
                for v in values:
                    t = v.get("type", "?") + ("/" + v["subtype"] if isinstance(v.get("subtype"), str) else "")
                    if isinstance(v.get("item"), dict):
                        t += ":" + str(v["item"].get("type"))
                    if not types or types[-1][0] != t:
                        types.append([t, 1])
                    else:
                        types[-1][1] += 1
                s["events" + key] = ["%s x%d" % (t, n) if n > 1 else t for t, n in types]
                errors = [v for v in values if v.get("type") in ("error", "turn.failed") or v.get("is_error") is True
                          or (isinstance(v.get("item"), dict) and v["item"].get("type") == "error")]
                if errors:
                    s["error_events" + key] = [trim(e) for e in errors[:3]] + ([{"more": len(errors) - 3}]
                                                                               if len(errors) > 3 else [])
    reqs = [json.loads(l) for l in read(os.path.join(d, "requests.jsonl")).splitlines() if l.strip()]
    main = [r for r in reqs if r.get("kind") == "main"]
    s["requests"] = {"main": len(main), "side": sum(r.get("kind") == "side" for r in reqs),
                     "unknown": sum(r.get("kind") == "unknown" for r in reqs),
                     "main_t": [r["t"] for r in main],
                     "main_answers": sorted(set(r.get("answer") for r in main)),
                     "side_paths": sorted(set(r["method"] + " " + r["path"] for r in reqs if r.get("kind") != "main")),
                     "exhausted": any(r.get("exhausted") for r in reqs)}
    results = [x for r in main for x in tool_results(r)]
    if results:
        s["tool_results"] = results
    plan = read(os.path.join(d, "PLAN.md.after"))
    s["plan_ticked"] = "- [x]" in plan
    s["hello_created"] = os.path.exists(os.path.join(d, "proj", "hello.txt"))
    if case.startswith("resume") and main:
        last = json.dumps(main[-1].get("body"))
        s["resumed"] = "Noted: the word is PINEAPPLE" in last and "Which word did I ask" in last
        s["session"] = read(os.path.join(d, "session")).strip() or None
    tool_env = read(os.path.join(d, "tool.env"))
    if tool_env:  # the variables the client added for the commands its model runs (probe.sh's env case)
        given = set()
        for line in read(os.path.join(d, "cmd")).splitlines()[1:2]:
            given = {w.split("=", 1)[0] for w in line.split() if "=" in w}
        s["tool_env_added"] = {k: cut(v, 120) for k, v in (l.split("=", 1) for l in tool_env.splitlines() if "=" in l)
                               if k not in given}
    for event in ("Stop", "SessionEnd"):
        payload = read(os.path.join(d, "hook-%s.json" % event))
        if payload:
            try:
                s["hook_" + event] = json.loads(payload)
            except ValueError:
                s["hook_" + event] = cut(payload)
    return s


def md(s, n=160):
    return cut(str(s), n).replace("|", "\\|").replace("\n", " ")


def table(path):
    rows = [json.loads(l) for l in open(path) if l.strip()]
    out = []
    for client in dict.fromkeys(r["client"] for r in rows):
        out.append("## %s\n" % client)
        out.append("| case | mode | rc | s | main requests (t) | stdout first … last | stderr first … last | final |")
        out.append("| --- | --- | --- | --- | --- | --- | --- | --- |")
        for r in rows:
            if r["client"] != client:
                continue
            q = r["requests"]
            final = r.get("final")
            if isinstance(final, dict):
                final = {k: final[k] for k in ("type", "subtype", "is_error", "api_error_status", "result", "response",
                                                "error", "usage", "session_id", "total_cost_usd") if k in final}
            o, e = r.get("stdout", {}), r.get("stderr", {})
            out.append("| %s | %s | %s%s | %s | %d %s | %s … %s | %s … %s | `%s` |" % (
                r["case"], r["mode"], r.get("rc"), " / %s" % r["rc2"] if "rc2" in r else "", r.get("seconds"),
                q["main"], q["main_t"][:12], md(o.get("first")), md(o.get("last")), md(e.get("first")),
                md(e.get("last")), md(json.dumps(final), 600) if final else ""))
        out.append("")
    print("\n".join(out))


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--table":
        table(sys.argv[2])
    elif len(sys.argv) == 5:
        print(json.dumps(summarise(*sys.argv[1:]), ensure_ascii=False))
    else:
        sys.exit("usage: summarise.py RUN_DIR CLIENT CASE MODE | summarise.py --table SUMMARY_JSONL")
