#!/usr/bin/env python3
"""Motion and sound detection benchmark for `make bench`: what detection costs. Default config (test sources,
1280x720@30, x264 4 Mbit/s, the moving ball so the detector has motion to find); each round runs two daemons side by
side over the same windows, one with `[motion] enabled` and `[sound] enabled`, one without, idle (detection runs
whether or not it records) and recording. Target: recording CPU with detection ≤ 1.02 × without (issue 34).

CPU is every thread's run time from /proc/PID/task/*/schedstat (ns). Each round alternates which daemon starts
first. The daemon with detection must have looked at frames (`status.motion.frames_analysed`) and seen the ball
(`motion_started`), or the round is void. Writes its section of docs/BENCHMARKS.md between markers.

    python3 Tests/Benchmarks/bench_motion.py --binary .build-release/release/appliance --out docs/BENCHMARKS.md
"""
import argparse
import json
import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_features import write_section  # noqa: E402
from bench_service import run_ns  # noqa: E402
from harness import Daemon as HarnessDaemon, call  # noqa: E402

START, END = "<!-- motion:start -->", "<!-- motion:end -->"
TARGET = 1.02


class Daemon(HarnessDaemon):
    def __init__(self, binary, work, detection, index):
        self.detection = detection
        directory = os.path.join(work, f"{'on' if detection else 'off'}-{index}")
        shutil.rmtree(directory, ignore_errors=True)
        os.makedirs(directory)
        config = (f'data_dir = "{os.path.join(directory, "data")}"\nlog_level = "warning"\n'
                  f'[audio]\nsource = "test"\n[web]\nlisten = "127.0.0.1:0"\n[preview]\nsink = "none"\n'
                  f'[motion]\nenabled = {"true" if detection else "false"}\n'
                  f'[sound]\nenabled = {"true" if detection else "false"}\n'
                  f'[[camera]]\nname = "main"\nsource = "test"\npattern = "ball"\n')
        super().__init__(binary, directory, config)

    def cpu(self):
        return run_ns(self.proc.pid)


def measure(daemons, window):
    """CPU of each daemon over the same wall-clock window, in cores."""
    c0, t0 = [d.cpu() for d in daemons], time.monotonic()
    time.sleep(window)
    dt = time.monotonic() - t0
    return [(d.cpu() - c) / dt for d, c in zip(daemons, c0)]


def paired_round(binary, work, index, window):
    order = (True, False) if index % 2 == 0 else (False, True)
    daemons = []
    try:
        for detection in order:
            daemons.append(Daemon(binary, work, detection, index))
        for d in daemons:
            d.wait_ready(60)
        time.sleep(3)  # settle
        idle = measure(daemons, window)
        for d in daemons:
            call(d.socket, "record.start")
        time.sleep(2)
        recording = measure(daemons, window)
        seen = {}
        for d in daemons:
            status = call(d.socket, "status")
            seen[d.detection] = status.get("motion") or {}
            call(d.socket, "record.stop")
    finally:
        for d in daemons:
            d.stop()
    on = seen[True]
    if on.get("frames_analysed", 0) < window * 2 * 4 or on.get("events", 0) < 1:
        raise RuntimeError(f"round {index}: detection did not run or saw no motion: {on}")
    result = {}
    for d, i, r in zip(daemons, idle, recording):
        result["on" if d.detection else "off"] = {"idle_cpu": i, "rec_cpu": r}
    result["frames_analysed"] = on["frames_analysed"]
    result["events"] = on["events"]
    return result


def report(rounds, command, window):
    def mean(key, mode):
        return sum(r[mode][key] for r in rounds) / len(rounds)
    rec = mean("rec_cpu", "on") / mean("rec_cpu", "off")
    idle = mean("idle_cpu", "on") / mean("idle_cpu", "off")
    per_round = " / ".join(f"{r['on']['rec_cpu'] / r['off']['rec_cpu']:.3f}" for r in rounds)
    lines = [START, "", "## Motion and sound detection against none", "",
             f"Measured by `{command}` (part of `make bench`), release build, same machine as above. Each round runs two "
             f"daemons side by side over the same {window:.0f} s windows, idle then recording (test sources, 1280x720@30, "
             f"x264 4 Mbit/s, videotestsrc's moving ball): one with `[motion] enabled` (5 gray 160x90 frames a second "
             f"through the detector) and `[sound] enabled`, one without (the microphone's level is measured in both). "
             f"{len(rounds)} rounds, alternating which daemon starts first; every round's detecting daemon looked at "
             f"frames and saw the ball ({', '.join(str(r['frames_analysed']) for r in rounds)} frames; "
             f"{', '.join(str(r['events']) for r in rounds)} motion events). CPU is every thread's run time from "
             f"/proc/PID/task/*/schedstat, in cores.", "",
             "| Metric | with detection (mean) | without (mean) | ratio | target | result |", "|---|---|---|---|---|---|",
             f"| Daemon CPU idle (cores) | {mean('idle_cpu', 'on'):.4f} | {mean('idle_cpu', 'off'):.4f} | {idle:.3f} | info | info |",
             f"| Daemon CPU recording (cores) | {mean('rec_cpu', 'on'):.4f} | {mean('rec_cpu', 'off'):.4f} | {rec:.3f} "
             f"(rounds: {per_round}) | ≤ {TARGET} | {'PASS' if rec <= TARGET else 'FAIL'} |",
             "", END]
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--out", default="docs/BENCHMARKS.md")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--window", type=float, default=20.0, help="seconds measured idle and again recording")
    args = ap.parse_args()
    args.binary = os.path.abspath(args.binary)
    command = f"python3 Tests/Benchmarks/bench_motion.py --binary {os.path.relpath(args.binary)} --out {args.out}"
    work = tempfile.mkdtemp(prefix="appliance-motion-")
    rounds = []
    try:
        for i in range(args.rounds):
            result = paired_round(args.binary, work, i, args.window)
            print(json.dumps(result), flush=True)
            rounds.append(result)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    write_section(args.out, report(rounds, command, args.window), START, END)
    return 0


if __name__ == "__main__":
    sys.exit(main())
