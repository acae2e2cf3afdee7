#!/usr/bin/env python3
"""Passthrough benchmark for `make bench` (issue 61): what storing 1, 2 and 4 network cameras as sent costs, against
gst-launch-1.0 storing the same streams with `rtspsrc ! rtph264depay ! h264parse ! mp4mux ! filesink`.

Each camera is Tests/RTSPCamera/rtsp_camera.py serving one H.264 clip made at the start (1280x720@30, a keyframe a
second, 2 Mbit/s, no sound) from its file, so the cameras cost no encoding. The daemon records every camera in a
channel of its own (`[[channel]]`, `[video] passthrough` as default, no sound) for `--window` seconds after
`--warmup`; gst-launch-1.0 runs the reference pipeline once per camera in one process, against cameras of its own.
CPU is every thread's run time (/proc/PID/task/*/schedstat), memory the anonymous resident set at the end (RssAnon),
writes per kept byte what the process sent to storage (/proc/PID/io write_bytes, until its files are closed) over the
size of the MP4 files it left.
Daemons and references alternate over `--rounds`; figures are medians, the ratio the median of each round's pair.
Targets: at most 2 % of a core per 720p30 camera, and the daemon's CPU ≤ 1.10 × gst-launch-1.0's. Written to
docs/BENCHMARKS.md between its markers.

    python3 Tests/Benchmarks/bench_passthrough.py --binary .build-release/release/appliance --out docs/BENCHMARKS.md
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_features import base_config, write_section  # noqa: E402
from bench_service import cpu_and_rss, media_bytes, write_bytes, writes_after_stop  # noqa: E402
from harness import Daemon, DaemonError  # noqa: E402

START, END = "<!-- bench_passthrough:start -->", "<!-- bench_passthrough:end -->"
COUNTS = (1, 2, 4)
PER_CAMERA, TARGET = 0.02, 1.10
CAMERA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "RTSPCamera", "rtsp_camera.py")


def make_clip(path, seconds):
    """The cameras' stream: 1280x720@30, 4:2:0 8-bit (High profile, as cameras send), a keyframe every 30 frames,
    2 Mbit/s, moving, no sound. The bars scroll across the whole picture so that the encoder spends its bitrate (a
    ball on black came out at 80 kbit/s, and the files were too small to judge what writing them costs). The format
    is named: left to negotiate, videotestsrc and x264enc agree on Y444_10LE (High 4:4:4), which no camera sends and
    which cost the daemon a conversion of every decoded picture to I420 (until session 72)."""
    subprocess.run(
        ["gst-launch-1.0", "-q", "videotestsrc", f"num-buffers={seconds * 30}", "pattern=smpte", "horizontal-speed=8",
         "!",
         "video/x-raw,format=I420,width=1280,height=720,framerate=30/1", "!", "x264enc", "speed-preset=veryfast",
         "key-int-max=30", "bitrate=2000", "option-string=scenecut=0", "!", "h264parse", "!", "mp4mux", "!",
         "filesink", f"location={path}"], check=True, capture_output=True)


class Cameras:
    """`count` RTSP cameras serving the clip from its start."""

    def __init__(self, clip, count):
        self.procs, self.urls = [], []
        for _ in range(count):
            proc = subprocess.Popen(["/usr/bin/python3", CAMERA, "--file", clip, "--no-audio"],
                                    stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
            line = proc.stdout.readline().split()
            if len(line) != 2 or line[0] != "ready":
                raise DaemonError("an RTSP camera did not start")
            self.procs.append(proc)
            self.urls.append(f"rtsp://127.0.0.1:{line[1]}/live")

    def stop(self):
        for proc in self.procs:
            proc.terminate()
            proc.wait(10)


def config(data_dir, urls):
    lines = ["[video]\nwidth = 1280\nheight = 720\nframerate = 30\n"]
    for i, url in enumerate(urls):
        lines.append(f'[[camera]]\nname = "cam{i}"\nsource = "rtsp"\nurl = "{url}"\n')
    for i in range(len(urls)):
        lines.append(f'[[channel]]\nname = "ch{i}"\ncameras = ["cam{i}"]\naudio = false\n')
    text = base_config(data_dir, "".join(lines), web=None)
    return text.replace('[audio]\nsource = "test"', '[audio]\nsource = "none"')


def daemon_run(binary, work, clip, count, warmup, window):
    directory = os.path.join(work, f"daemon-{count}")
    shutil.rmtree(directory, ignore_errors=True)
    cameras = Cameras(clip, count)
    daemon = Daemon(binary, directory, config(os.path.join(directory, "data"), cameras.urls))
    try:
        status = daemon.wait_ready(120)
        encoders = [c["encoder"] for c in status.get("channels", [])] or [status["encoder"]]
        if encoders != ["as-sent"] * count:
            raise DaemonError(f"{count} cameras stored as sent, status shows encoders {encoders}")
        daemon.call("record.start")
        cpu, rss = cpu_and_rss(daemon.proc.pid, warmup, window)
        states = [c["state"] for c in daemon.call("status").get("channels", [])] or ["recording"]
        if states != ["recording"] * count:
            raise DaemonError(f"not every channel recorded: {states}")
        daemon.call("record.stop")
        return cpu, rss, writes_after_stop(daemon) / max(1, media_bytes(os.path.join(directory, "data")))
    finally:
        daemon.stop()
        cameras.stop()


def launch_run(work, clip, count, warmup, window):
    out = os.path.join(work, f"reference-{count}")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    cameras = Cameras(clip, count)
    args = []
    for i, url in enumerate(cameras.urls):
        args += ["rtspsrc", f"location={url}", "!", "rtph264depay", "!", "h264parse", "!", "mp4mux", "!",
                 "filesink", f"location={os.path.join(out, f'ref{i}.mp4')}"]
    proc = subprocess.Popen(["gst-launch-1.0", "-q", "-e", *args],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        cpu, rss = cpu_and_rss(proc.pid, warmup, window)
        if proc.poll() is not None:
            raise DaemonError(f"gst-launch-1.0 ended: {proc.stderr.read().strip()[:300]}")
        return cpu, rss, write_bytes(proc.pid) / max(1, media_bytes(out))
    finally:
        proc.terminate()
        proc.wait(20)
        cameras.stop()


def run(binary, work, rounds, warmup, window):
    clip = os.path.join(work, "camera.mp4")
    make_clip(clip, int(warmup + window + 30))
    results = {(who, n): [] for who in ("appliance", "gst-launch-1.0") for n in COUNTS}
    for _ in range(rounds):
        for n in COUNTS:
            results[("appliance", n)].append(daemon_run(binary, work, clip, n, warmup, window))
            results[("gst-launch-1.0", n)].append(launch_run(work, clip, n, warmup, window))
            print({f"{who} {k}": [(round(c * 100, 1), round(m, 1), round(w, 3)) for c, m, w in v]
                   for (who, k), v in results.items() if v}, flush=True)
    return results


def report(command, machine, results, failure):
    lines = [START, "## Passthrough: network cameras stored as sent", "",
             f"Reproduce: `{command}` ({machine}). Each camera an RTSP server sending one H.264 clip "
             "(1280x720@30, a keyframe a second, 2 Mbit/s, no sound) from its file; the daemon stores each in a "
             "channel of its own (`as-sent`); gst-launch-1.0 runs `rtspsrc ! rtph264depay ! h264parse ! mp4mux ! "
             "filesink` once per camera in one process. CPU in % of a core, anonymous memory (RssAnon) at the end, "
             "medians of the rounds. Writes per kept byte: what the process sent to storage over the run "
             "(/proc/PID/io write_bytes: media, database, pictures, logs) over the size of the MP4 files it left.", ""]
    if failure:
        lines += [f"Failed: {failure}", END]
        return "\n".join(lines)
    med = {key: tuple(statistics.median(row[i] for row in v) for i in range(3)) for key, v in results.items()}
    lines += ["| cameras | appliance CPU | per camera | gst-launch-1.0 CPU | ratio (median of the rounds' pairs; each) "
              "| appliance RssAnon | gst-launch-1.0 RssAnon | writes per kept byte: appliance | gst-launch-1.0 |",
              "|---|---|---|---|---|---|---|---|---|"]
    per_camera_met, ratio_met = True, True
    for n in COUNTS:
        (ac, am, aw), (gc, gm, gw) = med[("appliance", n)], med[("gst-launch-1.0", n)]
        paired = [a[0] / g[0] for a, g in zip(results[("appliance", n)], results[("gst-launch-1.0", n)]) if g[0]]
        ratio = statistics.median(paired) if paired else float("inf")
        per_camera_met &= ac / n <= PER_CAMERA
        ratio_met &= ratio <= TARGET
        each = ", ".join(f"{r:.2f}" for r in paired)
        lines.append(f"| {n} | {ac * 100:.1f} % | {ac / n * 100:.2f} % | {gc * 100:.1f} % | {ratio:.2f} ({each}) | "
                     f"{am:.1f} MB | {gm:.1f} MB | {aw:.3f} | {gw:.3f} |")
    added = (med[("appliance", COUNTS[-1])][0] - med[("appliance", COUNTS[0])][0]) / (COUNTS[-1] - COUNTS[0])
    added_ref = (med[("gst-launch-1.0", COUNTS[-1])][0] - med[("gst-launch-1.0", COUNTS[0])][0]) / (
        COUNTS[-1] - COUNTS[0])
    lines += ["", f"Each camera added costs the daemon {added * 100:.2f} % of a core ({added_ref * 100:.2f} % for "
              f"gst-launch-1.0; from {COUNTS[0]} to {COUNTS[-1]} cameras)."]
    lines += ["", f"Targets: at most {PER_CAMERA * 100:.0f} % of a core per 720p30 camera: "
              f"{'met' if per_camera_met else 'NOT met'}; the daemon's CPU ≤ {TARGET:.2f} × gst-launch-1.0's: "
              f"{'met' if ratio_met else 'NOT met'}.", END]
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--out", default="docs/BENCHMARKS.md")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--warmup", type=float, default=5.0)
    ap.add_argument("--window", type=float, default=20.0)
    args = ap.parse_args()
    command = f"python3 Tests/Benchmarks/bench_passthrough.py --binary {args.binary} --out {args.out}"
    results, failure = {}, None
    with tempfile.TemporaryDirectory(prefix="bench-passthrough-") as work:
        try:
            results = run(os.path.abspath(args.binary), work, args.rounds, args.warmup, args.window)
        except (DaemonError, OSError, subprocess.SubprocessError) as e:
            failure = str(e)
    machine = f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at the end"
    write_section(args.out, report(command, machine, results, failure), START, END)
    return 1 if failure else 0


if __name__ == "__main__":
    sys.exit(main())
