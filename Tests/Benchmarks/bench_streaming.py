#!/usr/bin/env python3
"""Live streaming benchmark for `make bench`: what RTSP clients cost the recording, and what a viewer costs the
network against the dashboard's MJPEG. Default config otherwise (test sources, 1280x720@30, x264 4 Mbit/s, AAC
128 kbit/s); `[rtsp] listen = "127.0.0.1:0"` (the bound URL comes from `status.rtsp.url`).

  cpu        two daemons side by side over the same windows, both recording: one with three RTSP clients (ffmpeg
             copying the stream over TCP to nowhere; their own CPU is not counted) against one with none. Every
             thread's run time from /proc/PID/task/*/schedstat, alternating which daemon starts first.
  bytes      one daemon, idle: bytes a client receives per second, over RTSP (ffmpeg's -c copy output: the H.264 and
             AAC payload, RTP headers not counted) and over /live.mjpeg (curl's size_download: the JPEG parts and
             their multipart headers), each for the same window.

Writes its section of docs/BENCHMARKS.md between markers.

    python3 Tests/Benchmarks/bench_streaming.py --binary .build-release/release/appliance --out docs/BENCHMARKS.md
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
from bench_service import run_ns  # noqa: E402
from harness import Daemon as HarnessDaemon, DaemonError  # noqa: E402

START, END = "<!-- bench_streaming:start -->", "<!-- bench_streaming:end -->"
CPU_TARGET = 1.10
CLIENTS = 3
CAMERA = '[[camera]]\nname = "main"\nsource = "test"\n'


class Daemon(HarnessDaemon):
    """One daemon on its own folder, RTSP and the dashboard on free loopback ports (no password on loopback)."""

    def __init__(self, binary, work, name):
        directory = os.path.join(work, name)
        shutil.rmtree(directory, ignore_errors=True)
        super().__init__(binary, directory, base_config(os.path.join(directory, "data"), CAMERA + '[rtsp]\nlisten = "127.0.0.1:0"\n'))
        self.rtsp = self.web = None

    def wait_ready(self):
        status = super().wait_ready(120, until=lambda s: s["ready"] and (s.get("rtsp") or {}).get("url") and (s.get("web") or {}).get("url"))
        self.rtsp, self.web = status["rtsp"]["url"], status["web"]["url"]
        return status


def rtsp_client(url, seconds, out="-", fmt="null"):
    return subprocess.Popen(["ffmpeg", "-v", "error", "-rtsp_transport", "tcp", "-i", url, "-t", str(seconds), "-c", "copy",
                             "-f", fmt, "-y", out], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def cpu_round(binary, work, index, window):
    modes = ("clients", "none") if index % 2 == 0 else ("none", "clients")
    daemons, clients = [], []
    try:
        daemons = [Daemon(binary, work, f"{m}-{index}") for m in modes]
        for d in daemons:
            d.wait_ready()
        for d in daemons:
            d.call("record.start")
        watched = daemons[modes.index("clients")]
        clients = [rtsp_client(watched.rtsp, window + 30) for _ in range(CLIENTS)]
        deadline = time.monotonic() + 30
        while watched.call("status")["rtsp"]["clients"] < CLIENTS:
            if time.monotonic() > deadline:
                raise DaemonError("the RTSP clients did not connect")
            time.sleep(0.2)
        time.sleep(4)  # settle
        c0, t0 = [run_ns(d.proc.pid) for d in daemons], time.monotonic()
        time.sleep(window)
        dt = time.monotonic() - t0
        cpu = [(run_ns(d.proc.pid) - c) / dt for d, c in zip(daemons, c0)]
        if any(c.poll() is not None for c in clients):
            raise DaemonError("an RTSP client ended early: " + " ".join(c.stderr.read().decode() for c in clients if c.poll() is not None))
        dropped = [d.call("record.stop")["dropped_frames"] for d in daemons]
    finally:
        for c in clients:
            c.kill()
            c.wait()
        for d in daemons:
            d.stop()
    return {**{m: c for m, c in zip(modes, cpu)}, "dropped": dict(zip(modes, dropped))}


def bytes_round(binary, work, window):
    d = Daemon(binary, work, "bytes")
    try:
        d.wait_ready()
        copy = os.path.join(work, "copy.mkv")
        client = rtsp_client(d.rtsp, window, copy, "matroska")
        mjpeg = subprocess.run(["curl", "-s", "-o", "/dev/null", "--max-time", str(window), "-w", "%{size_download}",
                                d.web + "/live.mjpeg"], capture_output=True, text=True)
        client.wait(timeout=window + 60)
        rtsp_bytes = os.path.getsize(copy)
        return {"rtsp": rtsp_bytes / window, "mjpeg": float(mjpeg.stdout or 0) / window}
    finally:
        d.stop()


def report(command, rounds, failures, sizes, window, machine):
    lines = [START, "## Live streaming: RTSP", "",
             f"Reproduce: `{command}` ({machine}). Both daemons record 1280x720@30 x264 4 Mbit/s with AAC 128 kbit/s "
             f"from test sources; {window:.0f} s windows; CPU is every thread's run time of the daemon alone.", ""]
    if rounds:
        ratios = [r["clients"] / r["none"] for r in rounds]
        median = statistics.median(ratios)
        verdict = "met" if median <= CPU_TARGET else "NOT met"
        lines += ["| measure | value | target |", "|---|---|---|",
                  f"| recording CPU, {CLIENTS} RTSP clients / none (median of {len(rounds)}) | {median:.3f} "
                  f"({', '.join(f'{r:.3f}' for r in ratios)}) | ≤ {CPU_TARGET:.2f} ({verdict}) |",
                  f"| recording CPU with {CLIENTS} clients | {statistics.median(r['clients'] for r in rounds) * 100:.1f} % of a core | |",
                  f"| recording CPU without | {statistics.median(r['none'] for r in rounds) * 100:.1f} % of a core | |",
                  f"| frames dropped in the recordings (with clients / without) | "
                  f"{sum(r['dropped']['clients'] for r in rounds)} / {sum(r['dropped']['none'] for r in rounds)} | 0 |"]
    if sizes:
        lines += [f"| bytes per second per viewer, RTSP (1280x720@30 H.264 + AAC) | {sizes['rtsp'] / 1e6:.2f} MB/s "
                  f"({sizes['rtsp'] * 8 / 1e6:.2f} Mbit/s) | |",
                  f"| bytes per second per viewer, MJPEG live view (640x360@15) | {sizes['mjpeg'] / 1e6:.2f} MB/s "
                  f"({sizes['mjpeg'] * 8 / 1e6:.2f} Mbit/s) | |",
                  f"| RTSP / MJPEG | {sizes['rtsp'] / sizes['mjpeg']:.2f}, for 4× the pixels and twice the frames, with sound | |"]
    for name, error in failures.items():
        lines.append(f"\n{name} failed: {error}")
    lines += ["", "The clients' share of the cost is copying: the stream is the recording's own encoded output, "
              "so the encoder's work does not change with them (Streaming/ in docs/DESIGN-NOTES.md).", END]
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--out", default="docs/BENCHMARKS.md")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--window", type=float, default=20.0)
    args = ap.parse_args()
    binary = os.path.abspath(args.binary)
    command = f"python3 Tests/Benchmarks/bench_streaming.py --binary {args.binary} --out {args.out}"
    rounds, failures, sizes = [], {}, None
    with tempfile.TemporaryDirectory(prefix="bench-streaming-") as work:
        for i in range(args.rounds):
            try:
                r = cpu_round(binary, work, i, args.window)
                print("cpu", r, flush=True)
                rounds.append(r)
            except DaemonError as e:
                failures[f"cpu round {i}"] = str(e)
        try:
            sizes = bytes_round(binary, work, args.window)
            print("bytes", sizes, flush=True)
        except (DaemonError, OSError, subprocess.SubprocessError) as e:
            failures["bytes"] = str(e)
    machine = f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at the end"
    write_section(args.out, report(command, rounds, failures, sizes, args.window, machine), START, END)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
