#!/usr/bin/env python3
"""Channels benchmark for `make bench` (issue 61): what recording one and two local test cameras side by side costs,
against gst-launch-1.0 running the same recording pipelines in one process.

The daemon records 1, then 2 channels (`[[channel]]`, each its own test camera at 1280x720@30, x264 veryfast
4 Mbit/s; the first with the test tone), for `--window` seconds after `--warmup`; its CPU is every thread's run
time (/proc/PID/task/*/schedstat), its memory the anonymous resident set at the end (RssAnon). Side by side,
gst-launch-1.0 runs bench.py's reference recording pipeline once per channel (the second without sound), in one
process. Writes per kept byte: what each process sent to storage (/proc/PID/io write_bytes, until its files are
closed) over the size of the MP4 files it left. Daemons and references alternate over `--rounds`; the figures are medians, the ratio the median of each
round's pair. Target: the daemon's CPU ≤ 1.10 × gst-launch's for the same channels. Written to docs/BENCHMARKS.md between its markers.

    python3 Tests/Benchmarks/bench_channels.py --binary .build-release/release/appliance --out docs/BENCHMARKS.md
"""
import argparse
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import reference_branches  # noqa: E402
from bench_features import base_config, write_section  # noqa: E402
from bench_service import cpu_and_rss, media_bytes, write_bytes, writes_after_stop  # noqa: E402
from harness import Daemon, DaemonError, pinning_x264  # noqa: E402

START, END = "<!-- bench_channels:start -->", "<!-- bench_channels:end -->"
TARGET = 1.10


def channels_config(data_dir, count):
    """`count` test cameras, each its own channel; the first channel records the test tone."""
    lines = ['[video]\nwidth = 1280\nheight = 720\nframerate = 30\n']
    patterns = ["smpte", "ball", "snow", "pinwheel"]
    for i in range(count):
        lines.append(f'[[camera]]\nname = "cam{i}"\nsource = "test"\npattern = "{patterns[i]}"\n')
    for i in range(count):
        lines.append(f'[[channel]]\nname = "ch{i}"\ncameras = ["cam{i}"]\n')
    return pinning_x264(base_config(data_dir, "".join(lines), web=None))


def launch_line(work, count):
    """bench.py's reference recording pipeline once per channel, each its own muxer and file; sound on the first."""
    parts = []
    for i in range(count):
        branches = reference_branches(os.path.join(work, f"ref{i}.mp4"))
        branches = [[element.replace("name=mux", f"name=mux{i}").replace("mux.", f"mux{i}.") for element in b]
                    for b in branches]
        if i > 0:
            branches = branches[:2]  # no sound
            branches[1][0] = "videotestsrc is-live=true pattern=ball"
        parts.append("  ".join(" ! ".join(b) for b in branches))
    return "  ".join(parts)


def daemon_run(binary, work, count, warmup, window):
    directory = os.path.join(work, f"daemon-{count}")
    shutil.rmtree(directory, ignore_errors=True)
    daemon = Daemon(binary, directory, channels_config(os.path.join(directory, "data"), count))
    try:
        status = daemon.wait_ready(120)
        if len(status.get("channels", [])) != count:
            raise DaemonError(f"{count} channels configured, status shows {status.get('channels')}")
        daemon.call("record.start")
        cpu, rss = cpu_and_rss(daemon.proc.pid, warmup, window)
        states = [c["state"] for c in daemon.call("status")["channels"]]
        if states != ["recording"] * count:
            raise DaemonError(f"not every channel recorded: {states}")
        daemon.call("record.stop")
        return cpu, rss, writes_after_stop(daemon) / max(1, media_bytes(os.path.join(directory, "data")))
    finally:
        daemon.stop()


def launch_run(work, count, warmup, window):
    out = os.path.join(work, f"reference-{count}")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    proc = subprocess.Popen(["gst-launch-1.0", "-q", "-e", *shlex.split(launch_line(out, count))],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        cpu, rss = cpu_and_rss(proc.pid, warmup, window)
        if proc.poll() is not None:
            raise DaemonError(f"gst-launch-1.0 ended: {proc.stderr.read().strip()[:300]}")
        return cpu, rss, write_bytes(proc.pid) / max(1, media_bytes(out))
    finally:
        proc.terminate()
        proc.wait(20)


def run(binary, work, rounds, warmup, window):
    results = {(who, n): [] for who in ("appliance", "gst-launch-1.0") for n in (1, 2)}
    for _ in range(rounds):
        for n in (1, 2):
            results[("appliance", n)].append(daemon_run(binary, work, n, warmup, window))
            results[("gst-launch-1.0", n)].append(launch_run(work, n, warmup, window))
            print({f"{who} {k}": [(round(c * 100, 1), round(m, 1), round(w, 3)) for c, m, w in v]
                   for (who, k), v in results.items() if v}, flush=True)
    return results


def report(command, machine, results, failure):
    lines = [START, "## Channels: one and two cameras recorded side by side", "",
             f"Reproduce: `{command}` ({machine}). Each channel a test camera at 1280x720@30, x264 veryfast 4 Mbit/s "
             "(the first with the test tone), recorded; gst-launch-1.0 runs bench.py's reference recording pipeline "
             "once per channel in one process. CPU in % of a core and anonymous memory (RssAnon) at the end, medians "
             "of the rounds. Writes per kept byte: what the process sent to storage over the run (/proc/PID/io "
             "write_bytes: media, database, pictures, logs) over the size of the MP4 files it left.", ""]
    if failure:
        lines += [f"Failed: {failure}", END]
        return "\n".join(lines)
    med = {key: tuple(statistics.median(row[i] for row in v) for i in range(3)) for key, v in results.items()}
    lines += ["| channels | appliance CPU | gst-launch-1.0 CPU | ratio (median of the rounds' pairs; each) | appliance "
              "RssAnon | gst-launch-1.0 RssAnon | writes per kept byte: appliance | gst-launch-1.0 |",
              "|---|---|---|---|---|---|---|---|"]
    ratios = []
    for n in (1, 2):
        (ac, am, aw), (gc, gm, gw) = med[("appliance", n)], med[("gst-launch-1.0", n)]
        # Each round runs the daemon and then gst-launch-1.0: the ratio of a round's pair, median over the rounds,
        # cancels the machine's drift between rounds.
        paired = [a[0] / g[0] for a, g in zip(results[("appliance", n)], results[("gst-launch-1.0", n)]) if g[0]]
        ratios.append(statistics.median(paired) if paired else float("inf"))
        each = ", ".join(f"{r:.3f}" for r in paired)
        lines.append(
            f"| {n} | {ac * 100:.1f} % | {gc * 100:.1f} % | {ratios[-1]:.3f} ({each}) | {am:.1f} MB | {gm:.1f} MB "
            f"| {aw:.3f} | {gw:.3f} |")
    added = med[("appliance", 2)][0] - med[("appliance", 1)][0]
    added_ref = med[("gst-launch-1.0", 2)][0] - med[("gst-launch-1.0", 1)][0]
    met = all(r <= TARGET for r in ratios)
    lines += ["", f"The second channel adds {added * 100:.1f} % of a core to the daemon ({added_ref * 100:.1f} % to "
              f"gst-launch-1.0). Target: the daemon's CPU ≤ {TARGET:.2f} × gst-launch-1.0's for the same channels: "
              f"{'met' if met else 'NOT met'}.", END]
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--out", default="docs/BENCHMARKS.md")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--warmup", type=float, default=5.0)
    ap.add_argument("--window", type=float, default=20.0)
    args = ap.parse_args()
    command = f"python3 Tests/Benchmarks/bench_channels.py --binary {args.binary} --out {args.out}"
    results, failure = {}, None
    with tempfile.TemporaryDirectory(prefix="bench-channels-") as work:
        try:
            results = run(os.path.abspath(args.binary), work, args.rounds, args.warmup, args.window)
        except (DaemonError, OSError, subprocess.SubprocessError) as e:
            failure = str(e)
    machine = f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at the end"
    write_section(args.out, report(command, machine, results, failure), START, END)
    return 1 if failure else 0


if __name__ == "__main__":
    sys.exit(main())
