#!/usr/bin/env python3
"""Service benchmark for `make bench`: what systemd supervision and metrics cost. The daemon runs on the default
config (test sources, 1280x720@30, x264) in two modes, alternated over several rounds in one run:

  off  no NOTIFY_SOCKET, nobody reads metrics;
  on   NOTIFY_SOCKET (a datagram socket read here, as systemd would), WATCHDOG_USEC = 2 s (a ping every second,
       15 times what the shipped unit's WatchdogSec=30s asks) and `metrics` scraped every second (Prometheus
       scrapes every 15 s by default).

Each round measures CPU (utime + stime from /proc) over an idle window and a recording window, and RSS. The
gst-launch-1.0 pipeline equivalent to the recording (bench.py's reference) runs once in the same run for scale.
Writes its section of docs/BENCHMARKS.md between markers.

    python3 Tests/Benchmarks/bench_service.py --binary .build-release/release/appliance --out docs/BENCHMARKS.md
"""
import argparse
import json
import os
import shlex
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import reference_pipeline  # noqa: E402
from bench_features import base_config, cpu_seconds, write_section  # noqa: E402

START, END = "<!-- service:start -->", "<!-- service:end -->"
TARGET = 1.01
WATCHDOG_USEC = 2_000_000


def status_kb(pid, key):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0


class NotifyListener(threading.Thread):
    """systemd's end of the notify socket: counts the messages."""

    def __init__(self, path):
        super().__init__(daemon=True)
        self.path, self.messages, self.stop_flag = path, [], False
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(path)
        self.sock.settimeout(0.2)

    def run(self):
        while not self.stop_flag:
            try:
                self.messages.append(self.sock.recv(4096).decode())
            except socket.timeout:
                continue

    def close(self):
        self.stop_flag = True
        self.join()
        self.sock.close()


class Scraper(threading.Thread):
    """Asks for `metrics` every second, as a (very eager) Prometheus would."""

    def __init__(self, socket_path):
        super().__init__(daemon=True)
        self.socket_path, self.count, self.stop_flag = socket_path, 0, False

    def run(self):
        while not self.stop_flag:
            call(self.socket_path, "metrics")
            self.count += 1
            time.sleep(1.0)


def call(socket_path, command, args=None):
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.connect(socket_path)
        s.sendall((json.dumps({"command": command, "args": args or {}}) + "\n").encode())
        data = b""
        while not data.endswith(b"\n"):
            data += s.recv(1 << 20)
    response = json.loads(data)
    if not response["ok"]:
        raise RuntimeError(f"{command}: {response['error']}")
    return response["result"]


def round_(binary, work, mode, window):
    data = os.path.join(work, f"data-{mode}")
    shutil.rmtree(data, ignore_errors=True)
    config = os.path.join(work, "appliance.toml")
    with open(config, "w") as f:
        f.write(base_config(data, '[[camera]]\nname = "main"\nsource = "test"\n'))
    sock = os.path.join(work, "ctl.sock")
    env = dict(os.environ)
    listener = scraper = None
    if mode == "on":
        notify = os.path.join(work, "notify.sock")
        if os.path.exists(notify):
            os.unlink(notify)
        listener = NotifyListener(notify)
        listener.start()
        env.update(NOTIFY_SOCKET=notify, WATCHDOG_USEC=str(WATCHDOG_USEC))
    log = open(os.path.join(work, f"daemon-{mode}.log"), "w")
    proc = subprocess.Popen([binary, "run", "--config", config, "--socket", sock], stdout=log, stderr=log, env=env)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if call(sock, "status")["ready"]:
                    break
            except (OSError, ValueError):
                pass
            if time.monotonic() > deadline or proc.poll() is not None:
                raise RuntimeError("daemon did not get ready: " + open(log.name).read()[-2000:])
            time.sleep(0.05)
        if mode == "on":
            scraper = Scraper(sock)
            scraper.start()
        time.sleep(3)  # settle
        c0, t0 = cpu_seconds(proc.pid), time.monotonic()
        time.sleep(window)
        idle = (cpu_seconds(proc.pid) - c0) / (time.monotonic() - t0)
        idle_rss = status_kb(proc.pid, "VmRSS") / 1024
        call(sock, "record.start")
        time.sleep(2)
        c0, t0 = cpu_seconds(proc.pid), time.monotonic()
        time.sleep(window)
        recording = (cpu_seconds(proc.pid) - c0) / (time.monotonic() - t0)
        call(sock, "record.stop")
        peak = status_kb(proc.pid, "VmHWM") / 1024
        result = {"idle_cpu": idle, "rec_cpu": recording, "idle_rss_mb": idle_rss, "peak_rss_mb": peak}
        if scraper:
            scraper.stop_flag = True
            scraper.join()
            result["scrapes"] = scraper.count
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)
        if listener:
            listener.close()
            result["pings"] = sum("WATCHDOG=1" in m for m in listener.messages)
            result["ready_sent"] = any("READY=1" in m for m in listener.messages)
            result["stopping_sent"] = any("STOPPING=1" in m for m in listener.messages)
    return result


def reference(work, window):
    path = os.path.join(work, "reference.mp4")
    proc = subprocess.Popen(["gst-launch-1.0", "-e", *shlex.split(reference_pipeline(path))],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(3)
    c0, t0 = cpu_seconds(proc.pid), time.monotonic()
    time.sleep(window)
    cpu = (cpu_seconds(proc.pid) - c0) / (time.monotonic() - t0)
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=60)
    return cpu


def report(rounds, ref, command, window):
    on = [r for m, r in rounds if m == "on"]
    off = [r for m, r in rounds if m == "off"]

    def pooled(rs, key):
        return sum(r[key] for r in rs) / len(rs)

    def row(label, key, fmt, ratio_target=None):
        a, b = pooled(on, key), pooled(off, key)
        ratio = a / b if b else float("nan")
        each = " / ".join(fmt.format(r[key]) for r in on) + " vs " + " / ".join(fmt.format(r[key]) for r in off)
        verdict = "" if ratio_target is None else ("pass" if ratio <= ratio_target else "**over**")
        return f"| {label} | {fmt.format(a)} | {fmt.format(b)} | {ratio:.3f} | {each} | {verdict} |"

    pings = [r["pings"] for r in on]
    scrapes = [r["scrapes"] for r in on]
    lines = [START, "", "## Running as a service: notify, watchdog and metrics on against off", "",
             f"Measured by `{command}` (part of `make bench`), release build, same machine as above. "
             f"{len(on)} rounds each, alternated (off, on, on, off, …); each round {window:.0f} s idle and "
             f"{window:.0f} s recording (default config: test sources, 1280x720@30, x264 4 Mbit/s). "
             f"**on**: NOTIFY_SOCKET read by the bench, WATCHDOG_USEC = 2 s (pings every second: "
             f"{min(pings)}–{max(pings)} per round) and `metrics` scraped every second ({min(scrapes)}–{max(scrapes)} "
             f"per round); every round sent READY=1 and STOPPING=1: "
             f"{all(r['ready_sent'] and r['stopping_sent'] for r in on)}. **off**: none of it.", "",
             "| Metric | on (pooled) | off (pooled) | on / off | rounds (on vs off) | ≤ 1.01 |", "|---|---|---|---|---|---|",
             row("CPU idle (cores)", "idle_cpu", "{:.4f}", TARGET),
             row("CPU recording (cores)", "rec_cpu", "{:.4f}", TARGET),
             row("RSS idle (MB)", "idle_rss_mb", "{:.1f}", TARGET),
             row("Peak RSS (MB)", "peak_rss_mb", "{:.1f}", TARGET),
             "",
             f"For scale, in the same run: gst-launch-1.0 running the equivalent recording pipeline (bench.py's "
             f"reference) used {ref:.4f} cores.", "", END]
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--out", default="docs/BENCHMARKS.md")
    ap.add_argument("--rounds", type=int, default=3, help="rounds per mode")
    ap.add_argument("--window", type=float, default=20.0, help="seconds measured idle and again recording")
    args = ap.parse_args()
    command = f"python3 Tests/Benchmarks/bench_service.py --binary {args.binary} --out {args.out}"
    work = tempfile.mkdtemp(prefix="appliance-service-")
    rounds = []
    try:
        order = []
        for i in range(args.rounds):
            order += ["off", "on"] if i % 2 == 0 else ["on", "off"]
        for mode in order:
            result = round_(args.binary, work, mode, args.window)
            print(mode, json.dumps(result), flush=True)
            rounds.append((mode, result))
        ref = reference(work, args.window)
        print("gst-launch", f"{ref:.4f}", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    write_section(args.out, report(rounds, ref, command, args.window), START, END)
    return 0


if __name__ == "__main__":
    sys.exit(main())
