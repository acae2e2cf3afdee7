#!/usr/bin/env python3
"""Timeline benchmark for `make bench`: a day of loop recording at its real size, asked for in one request.

The library is seeded with `appliance dev seed --rows 8640 --segment-s 10 --events 1000`: one loop recording of
8,640 ten-second segments back to back up to now (real rows through the Library, an empty file for each), with a
five-minute gap every 2,880 segments, and 1,000 activities spread over it. The daemon (release build, test sources,
web on 127.0.0.1 with a token) is asked for the whole seeded range:

  api     GET /api/timeline?from=…&to=…: curl's time_starttransfer and time_total over loopback, 20 requests after one
          unmeasured; the body's size; the daemon's own `elapsed_ms` (library query and building the answer).
  ctl     `appliance ctl --json timeline --from … --to …`, the command's wall time (process start included), 5 runs.

Checks that the answer is right (3 spans, 1,000 events, every file)  before it reports a time.
Writes its section of docs/BENCHMARKS.md between markers.

    python3 Tests/Benchmarks/bench_timeline.py --binary .build-release/release/appliance --out docs/BENCHMARKS.md
"""
import datetime
import json
import os
import statistics
import subprocess
import sys
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_features import base_config, run_section_bench  # noqa: E402
from harness import Daemon  # noqa: E402

START, END = "<!-- bench_timeline:start -->", "<!-- bench_timeline:end -->"
TOKEN = "bench-timeline-token-0123456789abcdef"
TARGET_MS = 100.0
SEGMENTS, SEGMENT_S, EVENTS = 8640, 10, 1000


def iso(t):
    return datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.000Z")


def curl(url, fmt):
    out = subprocess.run(["curl", "-s", "-S", "--fail", "-o", "/dev/null", "-w", fmt, "-H", f"Authorization: Bearer {TOKEN}", url],
                         check=True, capture_output=True, text=True).stdout
    return out


def measure(binary, work):
    data = os.path.join(work, "data")
    t0 = time.monotonic()
    seeded = subprocess.run([binary, "dev", "seed", "--data-dir", data, "--rows", str(SEGMENTS), "--segment-s", str(SEGMENT_S),
                             "--events", str(EVENTS)], check=True, capture_output=True, text=True).stdout.strip()
    seed_s = time.monotonic() - t0
    token_file = os.path.join(work, "web.token")
    with open(token_file, "w") as f:
        f.write(TOKEN + "\n")
    os.chmod(token_file, 0o600)
    config = base_config(data, '[[camera]]\nname = "main"\nsource = "test"\n',
                         web=f'listen = "127.0.0.1:0"\ntoken_file = "{token_file}"')
    daemon = Daemon(binary, work, config)
    try:
        status = daemon.wait_ready()
        while not (status.get("web") or {}).get("url"):
            time.sleep(0.2)
            status = daemon.call("status")
        base = status["web"]["url"].rstrip("/")
        now = time.time()
        start, end = now - (SEGMENTS + SEGMENTS // 2880 * 30 + 60) * SEGMENT_S, now + 60
        query = urllib.parse.urlencode({"from": iso(start), "to": iso(end)})
        url = f"{base}/api/timeline?{query}"
        body = json.loads(subprocess.run(["curl", "-s", "-S", "--fail", "-H", f"Authorization: Bearer {TOKEN}", url],
                                         check=True, capture_output=True, text=True).stdout)
        spans, gaps, events = len(body["spans"]), len(body["gaps"]), len(body["events"])
        files = sum(s["recordings"] for s in body["spans"])
        if spans != SEGMENTS // 2880 or files != SEGMENTS or events != EVENTS or body["events_total"] != EVENTS:
            raise RuntimeError(f"unexpected timeline: {spans} spans of {files} files, {gaps} gaps, {events} events "
                               f"({body['events_total']} in all)")
        recorded_h = body["recorded_s"] / 3600
        size = int(curl(url, "%{size_download}"))
        first, total, server = [], [], []
        for _ in range(20):
            first.append(float(curl(url, "%{time_starttransfer}")) * 1000)
        for _ in range(20):
            total.append(float(curl(url, "%{time_total}")) * 1000)
        for _ in range(10):
            answer = json.loads(subprocess.run(["curl", "-s", "-S", "--fail", "-H", f"Authorization: Bearer {TOKEN}", url],
                                               check=True, capture_output=True, text=True).stdout)
            server.append(answer["elapsed_ms"])
        ctl = [daemon.ctl_timed("timeline", "--from", iso(start), "--to", iso(end))[1] for _ in range(5)]
        return {"seed_s": seed_s, "seeded": seeded, "spans": spans, "gaps": gaps, "events": events, "files": files,
                "recorded_h": recorded_h, "bytes": size, "first_ms": first, "total_ms": total, "server_ms": server, "ctl_ms": ctl}
    finally:
        daemon.stop()


def section(r):
    med = statistics.median
    ok = med(r["total_ms"]) <= TARGET_MS
    lines = [
        START,
        "## Timeline: a day of loop recording in one request",
        "",
        "Measured by `python3 Tests/Benchmarks/bench_timeline.py --binary .build-release/release/appliance --out docs/BENCHMARKS.md` "
        "(part of `make bench`), release build, on the machine above. `appliance dev seed` filled the library with one loop "
        f"recording of {SEGMENTS:,} segments of {SEGMENT_S} s back to back (a five-minute gap every 2,880) and {EVENTS:,} "
        f"activities ({r['seed_s']:.0f} s); the daemon was asked for the whole seeded range: {r['spans']} spans of "
        f"{r['files']:,} files, {r['gaps']} gaps, {r['events']:,} events, {r['recorded_h']:.1f} h recorded (checked before "
        "timing). curl over loopback with the bearer token.",
        "",
        "| Measure | median | worst | target | result |",
        "|---|---|---|---|---|",
        f"| `GET /api/timeline`, whole answer (curl time_total, 20 requests) | {med(r['total_ms']):.1f} ms | {max(r['total_ms']):.1f} ms | "
        f"≤ {TARGET_MS:.0f} ms | {'pass' if ok else 'FAIL'} |",
        f"| `GET /api/timeline`, first byte (time_starttransfer, 20 requests) | {med(r['first_ms']):.1f} ms | {max(r['first_ms']):.1f} ms | | |",
        f"| the daemon's own time (`elapsed_ms`: query and answer, 10 requests) | {med(r['server_ms']):.1f} ms | {max(r['server_ms']):.1f} ms | | |",
        f"| `appliance ctl --json timeline` (wall time, process start included, 5 runs) | {med(r['ctl_ms']):.0f} ms | {max(r['ctl_ms']):.0f} ms | | |",
        f"| answer size | {r['bytes'] / 1024:.0f} KiB | | | |",
        "",
        END,
    ]
    return "\n".join(lines)


def main():
    def run(binary, work):
        result = measure(binary, work)
        return {k: v for k, v in result.items() if k != "seeded"}, section(result)
    return run_section_bench(__doc__.split("\n")[0], "bench-timeline-", run, START, END)


if __name__ == "__main__":
    sys.exit(main())
