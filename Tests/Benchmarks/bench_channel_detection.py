#!/usr/bin/env python3
"""Detection on three channels for `make bench` (issue 61): three channels side by side, each a moving test camera,
recorded with motion and object detection on against the same three channels with detection off.

Each channel is its own test camera at 30 fps (x264 veryfast, pinned so both runs encode alike): the ball at 640x360,
the snow at 1280x720 (every pixel moves: motion everywhere, so the people detector looks at the whole picture all the
time, issue 61's worst case of "constant motion" on "a moving 1280x720 picture": HOG would need more than its budget
at `[objects] fps`, so the budget lowers its rate) and the ball again at 640x360. With detection on, `[motion]` and
`[objects]` are enabled with their defaults (OpenCV's HOG people detector, `cpu_budget` 0.25 of a core per channel).
Over `--window` seconds after `--warmup`: the daemon's CPU (every thread's run time, /proc/PID/task/*/schedstat), and
from status each channel's detector: its CPU time (`objects.cpu_s`, its thread's), its runs and the rate it holds
(`objects.held_fps`). Then each channel is stopped on its own and its clip says how many frames it dropped. Targets:
no frame dropped on any channel with detection on, and each detector within its budget (its CPU over the window ≤ 1.10
× `cpu_budget`: the budget is kept run by run, a run's own time is the margin). Written to docs/BENCHMARKS.md between
its markers.

    python3 Tests/Benchmarks/bench_channel_detection.py --binary .build-release/release/appliance --out docs/BENCHMARKS.md
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_features import base_config, write_section  # noqa: E402
from bench_service import run_ns, status_kb  # noqa: E402
from harness import Daemon, DaemonError, pinning_x264  # noqa: E402

START, END = "<!-- bench_channel_detection:start -->", "<!-- bench_channel_detection:end -->"
PATTERNS = ["ball", "snow", "ball"]
BIG = 1  # the snow's channel is 1280x720: HOG over its whole picture would take more than its budget at `fps`
BUDGET_MARGIN = 1.10


def config(data_dir, detection):
    lines = ['[video]\nwidth = 640\nheight = 360\nframerate = 30\n']
    for i, pattern in enumerate(PATTERNS):
        lines.append(f'[[camera]]\nname = "cam{i}"\nsource = "test"\npattern = "{pattern}"\n')
    for i in range(len(PATTERNS)):
        size = "width = 1280\nheight = 720\n" if i == BIG else ""
        lines.append(f'[[channel]]\nname = "ch{i}"\ncameras = ["cam{i}"]\n{size}')
    if detection:
        lines.append('[motion]\nenabled = true\n[objects]\nenabled = true\n')
    return pinning_x264(base_config(data_dir, "".join(lines), web=None))


def detectors(status):
    """Each channel's object status (None while its detection is off), by channel name."""
    return {c["name"]: c.get("objects") for c in status.get("channels", [])}


def run_once(binary, work, detection, warmup, window):
    directory = os.path.join(work, f"daemon-{'on' if detection else 'off'}")
    shutil.rmtree(directory, ignore_errors=True)
    daemon = Daemon(binary, directory, config(os.path.join(directory, "data"), detection))
    try:
        status = daemon.wait_ready(120)
        if len(status.get("channels", [])) != len(PATTERNS):
            raise DaemonError(f"{len(PATTERNS)} channels configured, status shows {status.get('channels')}")
        daemon.call("record.start")
        time.sleep(warmup)
        before, c0, t0 = detectors(daemon.call("status")), run_ns(daemon.proc.pid), time.monotonic()
        time.sleep(window)
        after, c1, t1 = detectors(daemon.call("status")), run_ns(daemon.proc.pid), time.monotonic()
        elapsed = t1 - t0
        result = {"cpu": (c1 - c0) / elapsed, "rss": status_kb(daemon.proc.pid, "RssAnon") / 1024, "channels": {}}
        for name, objects in after.items():
            if detection and objects is None:
                raise DaemonError(f"channel {name} runs no object detection: {after}")
            row = {}
            if objects:
                start = before.get(name) or {}
                row.update(share=(objects.get("cpu_s", 0) - start.get("cpu_s", 0)) / elapsed,
                           runs=objects["runs"] - start.get("runs", 0), held_fps=objects.get("held_fps"),
                           budget=objects.get("cpu_budget"), mean_ms=objects.get("mean_run_ms"))
            stopped = daemon.call("record.stop", {"channel": name})
            row.update(dropped=stopped.get("dropped_frames"), frames=stopped.get("video_frames"),
                       duration_s=(stopped.get("duration_ms") or 0) / 1000)
            result["channels"][name] = row
        return result
    finally:
        daemon.stop()


def run(binary, work, rounds, warmup, window):
    results = {"off": [], "on": []}
    for _ in range(rounds):
        for mode in ("off", "on"):
            results[mode].append(run_once(binary, work, mode == "on", warmup, window))
            print({m: [(round(r["cpu"] * 100, 1), {n: c.get("share") for n, c in r["channels"].items()})
                       for r in v] for m, v in results.items()}, flush=True)
    return results


def report(command, machine, results, failure):
    lines = [START, "## Detection on three channels: motion and objects on against off", "",
             f"Reproduce: `{command}` ({machine}). Three channels side by side, each a test camera at 30 fps: "
             "the ball at 640x360, the snow at 1280x720 (it moves everywhere, so its detector never rests for lack "
             "of motion and HOG over the whole picture needs more than its budget at `[objects] fps`), the ball "
             "again at 640x360; x264 veryfast, recorded. With detection on, `[motion]` and `[objects]` are on with "
             "their defaults (HOG, `cpu_budget` 0.25 of a core per channel). Daemon CPU in % of a core and RssAnon, "
             "medians of the rounds; each detector's CPU is its thread's time over the window (`objects.cpu_s`).", ""]
    if failure:
        lines += [f"Failed: {failure}", END]
        return "\n".join(lines)
    on, off = results["on"], results["off"]
    cpu_on, cpu_off = statistics.median(r["cpu"] for r in on), statistics.median(r["cpu"] for r in off)
    lines += ["| detection | daemon CPU | RssAnon | frames dropped (each channel, each round) |", "|---|---|---|---|"]
    for mode, rows, cpu in (("off", off, cpu_off), ("on", on, cpu_on)):
        dropped = "; ".join(", ".join(str(c["dropped"]) for c in r["channels"].values()) for r in rows)
        lines.append(f"| {mode} | {cpu * 100:.1f} % | {statistics.median(r['rss'] for r in rows):.1f} MB | {dropped} |")
    lines += ["", "| channel | picture | detector CPU (each round) | budget | runs a second held | mean run |",
              "|---|---|---|---|---|---|"]
    within = True
    for i, name in enumerate(on[0]["channels"]):
        rows = [r["channels"][name] for r in on]
        budget = rows[0]["budget"] or 0
        within &= all(budget == 0 or row["share"] <= budget * BUDGET_MARGIN for row in rows)
        shares = ", ".join(f"{row['share'] * 100:.1f} %" for row in rows)
        held = statistics.median(row["held_fps"] or 0 for row in rows)
        mean = statistics.median(row["mean_ms"] or 0 for row in rows)
        picture = f"{PATTERNS[i]}, {'1280x720' if i == BIG else '640x360'}"
        lines.append(f"| {name} | {picture} | {shares} | {budget * 100:.0f} % | {held:.2f} | {mean:.0f} ms |")
    no_drop = all(c["dropped"] == 0 for r in on for c in r["channels"].values())
    lines += ["", f"Detection on adds {(cpu_on - cpu_off) * 100:.1f} % of a core to the daemon for three channels "
              f"({cpu_on / cpu_off:.2f} × its CPU with detection off).", "",
              "| Target | result |", "|---|---|",
              f"| no frame dropped on any channel with detection on | {'PASS' if no_drop else 'FAIL'} |",
              f"| each detector within its budget (≤ {BUDGET_MARGIN:.2f} × `cpu_budget`) | "
              f"{'PASS' if within else 'FAIL'} |", END]
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--out", default="docs/BENCHMARKS.md")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--warmup", type=float, default=8.0)
    ap.add_argument("--window", type=float, default=20.0)
    args = ap.parse_args()
    command = f"python3 Tests/Benchmarks/bench_channel_detection.py --binary {args.binary} --out {args.out}"
    results, failure = {}, None
    with tempfile.TemporaryDirectory(prefix="bench-channel-detection-") as work:
        try:
            results = run(os.path.abspath(args.binary), work, args.rounds, args.warmup, args.window)
        except (DaemonError, OSError, subprocess.SubprocessError) as e:
            failure = str(e)
    machine = f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at the end"
    write_section(args.out, report(command, machine, results, failure), START, END)
    return 1 if failure else 0


if __name__ == "__main__":
    sys.exit(main())
