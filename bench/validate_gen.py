#!/usr/bin/python3
"""bench/validate_gen.py — N reflection.v1 records as JSONL (seeded): about 80% valid, 20% broken in one of eight ways."""
import json
import random
import sys

SURFACES = ["auth", "data", "infra", "ui", "build", "test", "docs", "none"]


def record(rng, i):
    files = [f"src/{rng.choice(['auth', 'db', 'ui', 'ci'])}/file{rng.randrange(1000)}.c" for _ in range(rng.randrange(1, 8))]
    surface = rng.choice(SURFACES)
    r = {
        "schema": "reflection.v1",
        "task_ref": f"TASK-{i}",
        "agent": rng.choice(["claude-code", "codex", "aider"]),
        "session_id": f"{rng.getrandbits(64):016x}",
        "repo": rng.choice(["rtk", "web", "infra"]),
        "timestamp": f"2026-{rng.randrange(1, 13):02d}-{rng.randrange(1, 29):02d}T{rng.randrange(24):02d}:{rng.randrange(60):02d}:{rng.randrange(60):02d}Z",
        "confidence": None if rng.random() < 0.1 else round(rng.random(), 3),
        "most_likely_wrong": None if rng.random() < 0.2 else {"surface": surface, "description": "edge case in " + files[0]},
        "known_not_in_diff": None if rng.random() < 0.5 else "migration not written",
        "risk": {"needs_review": rng.random() < 0.4, "score": round(rng.random(), 3), "surface": surface,
                 "reason": "paths under " + files[0].split("/")[1]},
        "files_changed": files,
        "provenance": {"source": "stop-hook", "reflection_attempt": rng.randrange(1, 4), "degraded": rng.random() < 0.05,
                       "reflection_mode": rng.choice(["off", "solo", "orchestrated"])},
    }
    if rng.random() < 0.2:
        kind = rng.randrange(8)
        if kind == 0:
            r["confidence"] = 1.5
        elif kind == 1:
            del r["repo"]
        elif kind == 2:
            r["risk"]["surface"] = "security"
        elif kind == 3:
            r["provenance"]["reflection_attempt"] = 0
        elif kind == 4:
            r["extra"] = True
        elif kind == 5:
            r["timestamp"] = "2026-13-01T00:00:00Z"
        elif kind == 6:
            r["most_likely_wrong"] = {"surface": "ui"}
        else:
            r["files_changed"].append(7)
    return r


def main():
    n, seed = int(sys.argv[1]), int(sys.argv[2])
    rng = random.Random(seed)
    out = sys.stdout
    for i in range(n):
        out.write(json.dumps(record(rng, i), separators=(",", ":")) + "\n")


main()
