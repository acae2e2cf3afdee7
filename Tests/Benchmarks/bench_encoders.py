#!/usr/bin/env python3
"""Encoder benchmark for `make bench`: what each H.264 encoder this machine has costs, and what `auto` costs.

1. Recording: for each encoder available here (x264 at the presets ultrafast and veryfast, openh264) at 1280x720 and
   1920x1080, 30 fps, 4 Mbit/s, the daemon (test picture and tone, no preview) records WINDOW_S seconds; then
   gst-launch-1.0 runs the same encoder fragment (pipelines/encoders/<name>.gst, placeholders filled as the daemon
   fills them) from the same test source into a fragmented MP4 for the same window. Alternated, ROUNDS rounds,
   medians. CPU is every thread's run time (/proc/PID/task/*/schedstat) over the window, as a share of one core;
   the file's video bitrate is from ffprobe; frames the daemon dropped are from the recording's result.
2. `auto`: a daemon on the default candidates with a fresh data folder (each candidate tried in a child process),
   then the same folder again (the choice cached for the boot), then pinned to the same encoder: time from launch
   to ready, and each candidate's trial time.

    python3 Tests/Benchmarks/bench_encoders.py --binary .build-release/release/appliance --out docs/BENCHMARKS.md
"""
import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_features import write_section  # noqa: E402
from bench_service import run_ns  # noqa: E402
from harness import Daemon, call  # noqa: E402

START, END = "<!-- encoders:start -->", "<!-- encoders:end -->"
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WINDOW_S = 8.0
SETTLE_S = 2.0
ROUNDS = 2
FPS, KBPS, KEY_S = 30, 4000, 1.0
SIZES = [(1280, 720), (1920, 1080)]
ENCODERS = [("x264", "ultrafast"), ("x264", "veryfast"), ("openh264", "veryfast")]


def fragment(name: str, preset: str) -> str:
    text = open(os.path.join(REPO, "pipelines", "encoders", f"{name}.gst")).read()
    text = "\n".join(line for line in text.splitlines() if not line.strip().startswith("#"))
    values = {"bitrate_kbps": str(KBPS), "bitrate_bps": str(KBPS * 1000), "keyframe_frames": str(int(FPS * KEY_S)),
              "speed_preset": preset, "framerate": str(FPS)}
    for key, value in values.items():
        text = text.replace("${" + key + "}", value)
    return text.strip()


def video_kbps(path: str) -> float:
    out = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "packet=size,duration_time",
                          "-of", "json", path], capture_output=True, text=True, check=True).stdout
    packets = json.loads(out)["packets"]
    size = sum(int(p["size"]) for p in packets)
    return size * 8 / 1000 / max(0.001, len(packets) / FPS)


def daemon_round(binary: str, work: str, name: str, preset: str, width: int, height: int) -> dict:
    config = (f'data_dir = "{work}/data"\nlog_level = "warning"\n[audio]\nsource = "test"\n[preview]\nsink = "none"\n'
              f'[web]\nlisten = "off"\n[video]\nencoder = "{name}"\nspeed_preset = "{preset}"\nwidth = {width}\nheight = {height}\n'
              f'framerate = {FPS}\nbitrate_kbps = {KBPS}\nkeyframe_interval_s = {KEY_S}\n'
              '[[camera]]\nname = "main"\nsource = "test"\npattern = "smpte"\n')
    daemon = Daemon(binary, work, config)
    try:
        daemon.wait_ready()
        time.sleep(SETTLE_S)
        call(daemon.socket, "record.start")
        time.sleep(1.0)
        before = run_ns(daemon.pid)
        time.sleep(WINDOW_S)
        cpu = (run_ns(daemon.pid) - before) / WINDOW_S
        result = call(daemon.socket, "record.stop")
    finally:
        daemon.stop()
    frames, expected = result["video_frames"], result["duration_ms"] / 1000 * FPS
    return {"cpu": cpu, "kbps": video_kbps(result["path"]), "dropped": max(0, expected - frames) / max(1, expected)}


def gst_round(work: str, name: str, preset: str, width: int, height: int) -> dict:
    path = os.path.join(work, "gst.mp4")
    pipeline = (f"videotestsrc is-live=true pattern=smpte ! video/x-raw,format=I420,width={width},height={height},framerate={FPS}/1 "
                f"! queue leaky=downstream max-size-buffers=5 max-size-bytes=0 max-size-time=0 ! {fragment(name, preset)} "
                f"! h264parse config-interval=-1 ! video/x-h264,stream-format=avc,alignment=au ! queue ! mux.video_0 "
                f"audiotestsrc is-live=true wave=sine freq=440 volume=0.2 ! audioconvert ! audioresample ! audio/x-raw,rate=48000,channels=2 "
                f"! queue ! avenc_aac bitrate=128000 ! aacparse ! queue ! mux.audio_0 "
                f"mp4mux name=mux fragment-duration=1000 ! filesink location={shlex.quote(path)} sync=false")
    proc = subprocess.Popen(["gst-launch-1.0", "-e", "-q", *shlex.split(pipeline)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(SETTLE_S + 1.0)
        before = run_ns(proc.pid)
        time.sleep(WINDOW_S)
        cpu = (run_ns(proc.pid) - before) / WINDOW_S
    finally:
        proc.send_signal(2)
        proc.wait(timeout=30)
    return {"cpu": cpu, "kbps": video_kbps(path)}


def recording_rows(binary: str) -> list[str]:
    rows = []
    for width, height in SIZES:
        for name, preset in ENCODERS:
            ours, theirs = [], []
            for _ in range(ROUNDS):
                with tempfile.TemporaryDirectory(prefix="bench-enc-") as work:
                    ours.append(daemon_round(binary, work, name, preset, width, height))
                with tempfile.TemporaryDirectory(prefix="bench-gst-") as work:
                    theirs.append(gst_round(work, name, preset, width, height))
            med = lambda runs, key: statistics.median(r[key] for r in runs)  # noqa: E731
            label = f"{name} {preset}" if name == "x264" else name
            rows.append(f"| {width}x{height} | {label} | {med(ours, 'cpu') * 100:.0f} % | {med(theirs, 'cpu') * 100:.0f} % "
                        f"| {med(ours, 'cpu') / max(0.001, med(theirs, 'cpu')):.2f} | {med(ours, 'kbps'):.0f} | {med(theirs, 'kbps'):.0f} "
                        f"| {med(ours, 'dropped') * 100:.1f} % |")
            print(rows[-1], flush=True)
    return rows


def auto_rows(binary: str) -> list[str]:
    with tempfile.TemporaryDirectory(prefix="bench-auto-") as work:
        config = (f'data_dir = "{work}/data"\nlog_level = "warning"\n[audio]\nsource = "test"\n[preview]\nsink = "none"\n'
                  '[web]\nlisten = "off"\n[video]\nencoder = "auto"\n[[camera]]\nname = "main"\nsource = "test"\n')
        starts = {}
        for label in ("trial", "cached"):
            daemon = Daemon(binary, os.path.join(work, label), config)
            status = daemon.wait_ready()
            starts[label] = daemon.ready_s
            choice = status["encoder_choice"]
            daemon.stop()
            if label == "trial":
                trials = choice["trials"]
                chosen = choice["encoder"]
        pinned = config.replace('encoder = "auto"', f'encoder = "{chosen}"')
        daemon = Daemon(binary, os.path.join(work, "pinned"), pinned)
        daemon.wait_ready()
        starts["pinned"] = daemon.ready_s
        daemon.stop()
    tried = ", ".join(f"{t['name']} {t['result']}" + (f" {t['ms']} ms" if t["result"] in ("passed", "failed", "timed_out") else "")
                      for t in trials if t["result"] != "not_tried")
    return [f"| first start (trials) | {starts['trial'] * 1000:.0f} ms | {tried} |",
            f"| restart in the same boot (cached) | {starts['cached'] * 1000:.0f} ms | no trial |",
            f"| `encoder = \"{chosen}\"` (pinned) | {starts['pinned'] * 1000:.0f} ms | no trial |"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    binary = os.path.abspath(args.binary)
    auto = auto_rows(binary)
    recording = recording_rows(binary)
    section = "\n".join([
        START, "## Encoders: what each costs here, and what `auto` costs", "",
        f"Measured by `python3 Tests/Benchmarks/bench_encoders.py --binary .build-release/release/appliance --out docs/BENCHMARKS.md` "
        f"(in `make bench`) on this machine (2 cores, no hardware encoder), release build. Recording: the daemon (test picture "
        f"and tone, no preview, {KBPS} kbit/s, a keyframe a second) against gst-launch-1.0 running the same encoder fragment "
        f"from the same source into a fragmented MP4, alternated, {ROUNDS} rounds of {WINDOW_S:g} s, medians. CPU is a share of "
        "one core (schedstat, every thread); the bitrate is the file's video.", "",
        "| size | encoder | daemon CPU | gst-launch CPU | ratio | daemon kbit/s | gst-launch kbit/s | frames dropped |",
        "|---|---|---|---|---|---|---|---|", *recording, "",
        "`auto` on the default candidates (time from launch to ready; each candidate's trial in its child process):", "",
        "| start | ready after | trials |", "|---|---|---|", *auto, END])
    write_section(args.out, section, START, END)


if __name__ == "__main__":
    main()
