#!/usr/bin/env python3
"""Benchmark harness for `make bench`: the appliance daemon against a plain gst-launch-1.0 pipeline.

Usage:
    python3 Tests/Benchmarks/bench.py --binary .build-release/release/appliance --out docs/BENCHMARKS.md \
        [--seconds 20] [--rounds 3] [--max-wait-quiet 300]

What it does (docs/BENCHMARKS.md describes the method for readers). Each round, after waiting for the machine to
be quiet:
  1. Starts `appliance run` on a temporary data dir and socket with the embedded default config, waits for the
     socket to answer, lets the daemon settle for 3 s.
  2. Round 1 only: idle CPU, the daemon's utime+stime over 10 s with no recording.
  3. One long recording (N s of steady state + 1 s start-up): daemon CPU (total, and steady state between t=1 s and
     t=N+1 s after the start request), RSS, start/stop latency from the `record stop` answer and the wall time
     of the `ctl record stop` command. Round 1 only: 5 short (2 s) recordings for start/stop latency median and max.
  4. Reads VmHWM, stops the daemon, then runs the equivalent single pipeline under `gst-launch-1.0 -e` for the same
     window (CPU sampled at t=1 s and t=N+1 s, then SIGINT so -e finalises the MP4) and reads its peak RSS.
  5. Checks both MP4s with ffprobe so the comparison is of equal work.
Then it writes the Markdown report (CPU ratio = median of the per-round ratios) and prints the tables.

Exit status: 0 when the benchmark ran (even if a target is missed: bench reports, it does not gate),
1 when something broke (daemon did not start, a command failed, an output file is missing), 2 on bad usage.
Python 3 standard library only.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import fcntl
import hashlib
import json
import os
import platform
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

CLK_TCK = os.sysconf("SC_CLK_TCK")

# Targets (docs/BENCHMARKS.md). Kept here so the report and the check can never disagree.
TARGET_CPU_RATIO = 1.10  # appliance / gst-launch, steady-state CPU while recording
TARGET_PEAK_RSS_MB = 150.0  # appliance VmHWM over the whole run
TARGET_FRAME_MATCH = 0.05  # both files must hold the same video frame count within 5 % (equal work)

SETTLE_S = 3.0
IDLE_S = 10.0
STARTUP_S = 1.0  # excluded from the steady-state window, for both processes
SHORT_RUNS = 5
SHORT_S = 2.0
RSS_SAMPLE_S = 0.5

# The default config (Config/appliance.toml, embedded in the binary), as the daemon builds it
# (Sources/Engine/Capture/CaptureGraph.swift, RecordingBin.swift, pipelines/*.gst).
WIDTH, HEIGHT, FPS = 1280, 720, 30
VIDEO_KBPS, KEYINT, PRESET = 4000, 30, "veryfast"
AUDIO_RATE, AUDIO_CH, AUDIO_BPS = 48000, 2, 128000
FRAGMENT_MS = 1000  # recording.sync_interval_s: the default file_layout = "fragmented" (RecordingBin.swift)
INTERLEAVE_NS = 500_000_000
ENCODER_QUEUE_FRAMES = FPS  # EncoderChain.queueFrames: a second of raw frames


def reference_branches(path: str) -> list[list[str]]:
    """The daemon's recording graph as gst-launch branches (elements in link order), minus the input-selector with
    its filler source, the raw tee and the frame tap."""
    mux_queue = "queue max-size-buffers=0 max-size-bytes=0 max-size-time=5000000000"
    return [
        [f"mp4mux name=mux fragment-duration={FRAGMENT_MS} fragment-mode=dash-or-mss interleave-time={INTERLEAVE_NS}",
         f"filesink location={shlex.quote(path)} sync=false async=false buffer-mode=unbuffered"],
        ["videotestsrc is-live=true pattern=smpte", "videoconvert", "videoscale add-borders=true",
         "videorate drop-only=false",
         f"video/x-raw,format=I420,width={WIDTH},height={HEIGHT},framerate={FPS}/1,pixel-aspect-ratio=1/1",
         f"queue leaky=downstream max-size-buffers={ENCODER_QUEUE_FRAMES} max-size-bytes=0 max-size-time=0",
         f"x264enc tune=zerolatency speed-preset={PRESET} bitrate={VIDEO_KBPS} key-int-max={KEYINT}",
         "video/x-h264,profile=high", "h264parse config-interval=-1", mux_queue, "mux.video_0"],
        ["audiotestsrc is-live=true wave=sine freq=440 volume=0.2", "audioconvert", "audioresample",
         f"audio/x-raw,rate={AUDIO_RATE},channels={AUDIO_CH}", "queue", f"avenc_aac bitrate={AUDIO_BPS}",
         "aacparse", mux_queue, "mux.audio_0"],
    ]


def reference_pipeline(path: str) -> str:
    return "  ".join(" ! ".join(branch) for branch in reference_branches(path))


def pretty_pipeline(path: str) -> str:
    """The reference pipeline as a shell command, one element per line, for the report."""
    lines = []
    for branch in reference_branches(path):
        lines += [f"  {'' if i == 0 else '! '}{el}" for i, el in enumerate(branch)]
    return "gst-launch-1.0 -e \\\n" + " \\\n".join(lines)


sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Daemon as HarnessDaemon, DaemonError as BenchError, tail  # noqa: E402


class ExternalStop(BenchError):
    """The daemon exited cleanly (status 0) without being asked to by us: another process sent it SIGTERM/SIGINT
    (for example a `pkill appliance` elsewhere on a shared machine). The round is retried once."""


def log(msg: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------- /proc readers


def cpu_seconds(pid: int) -> float:
    """utime + stime of all threads of `pid`, in seconds."""
    with open(f"/proc/{pid}/stat") as f:
        stat = f.read()
    fields = stat[stat.rindex(")") + 2:].split()  # fields[0] is field 3 (state)
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def thread_ticks(pid: int) -> dict[int, tuple[str, int]]:
    """Per thread of `pid`: (name, utime+stime in clock ticks). Threads that exit in between are lost."""
    out = {}
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        name = stat[stat.index("(") + 1:stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2:].split()
        out[int(tid)] = (name, int(fields[11]) + int(fields[12]))
    return out


def thread_breakdown(before: dict, after: dict, wall: float, top: int = 8) -> list[tuple[str, float]]:
    """CPU % of one core per thread name (GStreamer names threads after the pad that drives them), largest first."""
    by_name: dict[str, float] = {}
    for tid, (name, ticks) in after.items():
        used = ticks - before.get(tid, (name, 0))[1]
        if used > 0:
            by_name[name] = by_name.get(name, 0.0) + 100.0 * used / CLK_TCK / wall
    rows = sorted(by_name.items(), key=lambda kv: -kv[1])
    rest = sum(v for _, v in rows[top:])
    return rows[:top] + ([("(other threads)", rest)] if rest > 0 else [])


def status_kb(pid: int, key: str) -> int | None:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except (FileNotFoundError, ProcessLookupError):
        pass
    return None


def system_busy_seconds() -> float:
    """Non-idle CPU time of the whole machine (all cores), in seconds: for spotting background load."""
    with open("/proc/stat") as f:
        parts = f.readline().split()[1:]
    v = [int(x) for x in parts]
    idle = v[3] + (v[4] if len(v) > 4 else 0)
    busy = sum(v[:8]) - idle  # user nice system idle iowait irq softirq steal (guest is inside user)
    return busy / CLK_TCK


class Window:
    """CPU of one process (and of its threads) and of the whole machine between two points in time."""

    def __init__(self, pid: int):
        self.pid = pid
        self.threads0 = thread_ticks(pid)
        self.t0 = time.monotonic()
        self.cpu0 = cpu_seconds(pid)
        self.sys0 = system_busy_seconds()

    def close(self) -> dict:
        t1, cpu1, sys1 = time.monotonic(), cpu_seconds(self.pid), system_busy_seconds()
        wall = t1 - self.t0
        cpu = cpu1 - self.cpu0
        threads = thread_breakdown(self.threads0, thread_ticks(self.pid), wall)
        return {
            "threads": threads,
            "wall_s": wall,
            "cpu_s": cpu,
            "cpu_pct": 100.0 * cpu / wall,
            # Everything else on the machine during the window, % of one core: noise indicator.
            "other_pct": 100.0 * max(0.0, (sys1 - self.sys0) - cpu) / wall,
        }


class RssSampler(threading.Thread):
    """Samples VmRSS of a process every RSS_SAMPLE_S; keeps (monotonic time, kB) pairs."""

    def __init__(self, pid: int):
        super().__init__(daemon=True)
        self.pid = pid
        self.samples: list[tuple[float, int]] = []
        self.hwm_kb: int | None = None  # last VmHWM read while the process was alive
        self._halt = threading.Event()

    def run(self) -> None:
        while not self._halt.is_set():
            rss = status_kb(self.pid, "VmRSS")
            hwm = status_kb(self.pid, "VmHWM")
            if rss is not None:
                self.samples.append((time.monotonic(), rss))
            if hwm is not None:
                self.hwm_kb = hwm
            self._halt.wait(RSS_SAMPLE_S)

    def stop(self) -> None:
        self._halt.set()
        self.join(timeout=2)

    def max_kb(self, t0: float = 0.0, t1: float = float("inf")) -> int | None:
        window = [kb for t, kb in self.samples if t0 <= t <= t1]
        return max(window) if window else None


# ---------------------------------------------------------------- processes and cleanup


class Cleanup:
    """Processes and directories to remove whatever happens (exceptions, SIGTERM, Ctrl-C)."""

    def __init__(self) -> None:
        self.procs: list[subprocess.Popen] = []
        self.dirs: list[str] = []
        self.samplers: list[RssSampler] = []

    def run(self) -> None:
        for s in self.samplers:
            s.stop()
        for p in reversed(self.procs):
            stop_process(p, signal.SIGTERM, timeout=10)
        for d in self.dirs:
            shutil.rmtree(d, ignore_errors=True)
        self.procs.clear()
        self.dirs.clear()


def stop_process(p: subprocess.Popen, sig: int, timeout: float) -> int | None:
    """Sends `sig` to this one process (by pid), waits, then SIGKILLs it if it did not exit."""
    if p.poll() is not None:
        return p.returncode
    try:
        p.send_signal(sig)
        return p.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        log(f"pid {p.pid} did not exit after signal {sig} in {timeout:.0f} s; killing it")
        p.kill()
        return p.wait(timeout=5)
    except ProcessLookupError:
        return p.poll()


class Daemon(HarnessDaemon):
    """The daemon on its embedded default config, with a data folder of its own; registered for cleanup."""

    def __init__(self, binary: str, workdir: str, cleanup: Cleanup):
        super().__init__(binary, workdir)
        cleanup.procs.append(self.proc)

    def wait_ready(self, timeout: float = 60.0) -> dict:
        """The first status the socket answers (readiness itself is measured from it)."""
        return super().wait_ready(timeout, until=lambda status: True)


def ffprobe(path: str) -> dict:
    """Container duration and per-stream codec/frame count/duration, from the MP4 index (no decoding)."""
    if not os.path.isfile(path) or os.path.getsize(path) == 0:
        raise BenchError(f"output file missing or empty: {path}")
    r = subprocess.run(
        ["ffprobe", "-v", "error", "-of", "json", "-show_entries",
         "format=duration,size:stream=codec_type,codec_name,profile,width,height,nb_frames,duration,sample_rate",
         path],
        capture_output=True, text=True, timeout=60,
    )
    if r.returncode != 0:
        raise BenchError(f"ffprobe failed on {path}: {r.stderr.strip()}")
    info = json.loads(r.stdout)
    out = {"path": path, "duration_s": float(info["format"].get("duration", "nan")),
           "size_bytes": int(info["format"].get("size", 0))}
    for s in info.get("streams", []):
        kind = s.get("codec_type")
        if kind in ("video", "audio") and kind not in out:
            out[kind] = {
                "codec": s.get("codec_name"), "profile": s.get("profile"),
                "frames": int(s.get("nb_frames", 0) or 0), "duration_s": float(s.get("duration", "nan")),
                "width": s.get("width"), "height": s.get("height"), "sample_rate": s.get("sample_rate"),
            }
    if "video" not in out:
        raise BenchError(f"no video stream in {path}")
    return out


# ---------------------------------------------------------------- the measurements


def measure_appliance(binary: str, seconds: float, workdir: str, cleanup: Cleanup, first: bool) -> dict:
    """One daemon lifetime. The first round also measures idle CPU and the short-recording latencies."""
    log(f"starting daemon: {binary} run (data dir and socket in {workdir})")
    daemon = Daemon(binary, workdir, cleanup)
    try:
        return _measure_appliance(daemon, seconds, cleanup, first)
    except BenchError as e:
        time.sleep(0.2)
        cls = ExternalStop if daemon.proc.poll() == 0 else BenchError
        raise cls(f"{e}\n{daemon.diagnose()}") from None


def _measure_appliance(daemon: Daemon, seconds: float, cleanup: Cleanup, first: bool) -> dict:
    res: dict = {}
    t_launch = daemon.t_launch
    rss = RssSampler(daemon.pid)
    cleanup.samplers.append(rss)
    rss.start()
    status = daemon.wait_ready()
    res["ready_s"] = time.monotonic() - t_launch
    res["status"] = status
    log(f"daemon ready in {res['ready_s']:.2f} s (state {status.get('state')}, "
        f"camera {status.get('camera_sources')}, audio {status.get('audio_source')}); settling {SETTLE_S:.0f} s")
    time.sleep(SETTLE_S)
    daemon.alive()

    if first:
        log(f"idle CPU over {IDLE_S:.0f} s")
        w = Window(daemon.pid)
        time.sleep(IDLE_S)
        res["idle"] = w.close()
        res["idle_rss_kb"] = status_kb(daemon.pid, "VmRSS")
        daemon.alive()

    log(f"recording {seconds:.0f} s (+{STARTUP_S:.0f} s start-up)")
    total = Window(daemon.pid)
    t_start = time.monotonic()
    started, start_wall_ms = daemon.ctl_timed("record", "start", "--title", "bench")
    sleep_until(t_start + STARTUP_S)
    steady = Window(daemon.pid)
    sleep_until(t_start + STARTUP_S + seconds)
    res["steady"] = steady.close()
    t_stop = time.monotonic()
    stopped, stop_wall_ms = daemon.ctl_timed("record", "stop")
    res["total"] = total.close()
    res["record_rss_max_kb"] = rss.max_kb(t_start, time.monotonic())
    res["started"] = started
    res["start_wall_ms"] = start_wall_ms
    res["stopped"] = stopped
    res["stop_wall_ms"] = stop_wall_ms
    res["recorded_wall_s"] = t_stop - t_start
    log(f"main recording: {stopped.get('duration_ms')} ms, {stopped.get('video_frames')} frames, "
        f"{stopped.get('dropped_frames')} dropped, start {stopped.get('start_latency_ms')} ms, "
        f"stop {stopped.get('stop_latency_ms')} ms (ctl stop {stop_wall_ms:.0f} ms wall)")
    if not stopped.get("path"):
        raise BenchError(f"record stop answered no path: {stopped}")
    res["probe"] = ffprobe(stopped["path"])

    shorts = []
    for i in range(SHORT_RUNS if first else 0):
        time.sleep(0.5)  # let the gate close and the previous bin go away
        _, sw = daemon.ctl_timed("record", "start", "--title", f"bench-short-{i + 1}")
        time.sleep(SHORT_S)
        stop, tw = daemon.ctl_timed("record", "stop")
        shorts.append({"start_latency_ms": stop.get("start_latency_ms"), "stop_latency_ms": stop.get("stop_latency_ms"),
                       "start_wall_ms": sw, "stop_wall_ms": tw, "frames": stop.get("video_frames"),
                       "dropped": stop.get("dropped_frames")})
        log(f"short recording {i + 1}/{SHORT_RUNS}: start {stop.get('start_latency_ms')} ms, "
            f"stop {stop.get('stop_latency_ms')} ms, ctl stop {tw:.0f} ms wall")
    res["shorts"] = shorts
    daemon.alive()

    res["hwm_kb"] = status_kb(daemon.pid, "VmHWM")
    res["rss_max_kb"] = rss.max_kb()
    rss.stop()
    log("stopping daemon (SIGTERM)")
    t0 = time.monotonic()
    res["exit_status"] = stop_process(daemon.proc, signal.SIGTERM, timeout=15)
    res["shutdown_s"] = time.monotonic() - t0
    res["log_tail"] = tail(daemon.log_path, 15)
    return res


def measure_reference(seconds: float, workdir: str, cleanup: Cleanup) -> dict:
    res: dict = {}
    out = os.path.join(workdir, "reference.mp4")
    pipeline = reference_pipeline(out)
    res["pipeline"] = pipeline
    log_path = os.path.join(workdir, "gst-launch.log")
    log(f"reference: gst-launch-1.0 -e for {seconds:.0f} s (+{STARTUP_S:.0f} s start-up)")
    with open(log_path, "wb") as lf:
        t_start = time.monotonic()
        proc = subprocess.Popen(["gst-launch-1.0", "-e", *shlex.split(pipeline)], stdin=subprocess.DEVNULL,
                                stdout=lf, stderr=subprocess.STDOUT, start_new_session=True)
    cleanup.procs.append(proc)
    rss = RssSampler(proc.pid)
    cleanup.samplers.append(rss)
    rss.start()
    sleep_until(t_start + STARTUP_S)
    if proc.poll() is not None:
        raise BenchError(f"gst-launch exited early ({proc.returncode}):\n" + tail(log_path))
    steady = Window(proc.pid)
    sleep_until(t_start + STARTUP_S + seconds)
    res["steady"] = steady.close()
    res["hwm_before_eos_kb"] = status_kb(proc.pid, "VmHWM")
    t_int = time.monotonic()
    os.kill(proc.pid, signal.SIGINT)  # -e: EOS, mp4mux finalises, then gst-launch exits
    try:
        _, wstatus, usage = os.wait4(proc.pid, 0)  # rusage: exact lifetime CPU and max RSS
    except ChildProcessError:
        raise BenchError("lost the gst-launch child")
    proc.returncode = os.waitstatus_to_exitcode(wstatus)
    res["finalise_ms"] = (time.monotonic() - t_int) * 1000.0
    rss.stop()
    res["exit_status"] = proc.returncode
    res["lifetime_cpu_s"] = usage.ru_utime + usage.ru_stime
    res["maxrss_kb"] = usage.ru_maxrss  # kB on Linux
    res["hwm_kb"] = max(filter(None, [rss.hwm_kb, res["hwm_before_eos_kb"], usage.ru_maxrss]))
    res["rss_max_kb"] = rss.max_kb()
    res["recorded_wall_s"] = t_int - t_start
    if proc.returncode != 0:
        raise BenchError(f"gst-launch exited with {proc.returncode}:\n" + tail(log_path))
    res["probe"] = ffprobe(out)
    return res


def wait_for_quiet(max_wait: float, threshold_pct: float = 15.0) -> float:
    """Waits (up to max_wait s) until the machine's total non-idle CPU over 2 s is below threshold_pct of one core,
    so a build or test run on this shared machine does not land in the measurements. Returns the last load seen."""
    deadline = time.monotonic() + max_wait
    while True:
        t0, b0 = time.monotonic(), system_busy_seconds()
        time.sleep(2.0)
        load = 100.0 * (system_busy_seconds() - b0) / (time.monotonic() - t0)
        if load < threshold_pct:
            return load
        if time.monotonic() >= deadline:
            log(f"machine still busy ({load:.0f} % of one core); measuring anyway — the report will say so")
            return load
        log(f"machine busy ({load:.0f} % of one core in use by other processes); waiting for it to settle")
        time.sleep(3.0)


def sleep_until(t: float) -> None:
    while (d := t - time.monotonic()) > 0:
        time.sleep(min(d, 0.5))


# ---------------------------------------------------------------- report


def binary_identity(path: str) -> str:
    st = os.stat(path)
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    built = dt.datetime.fromtimestamp(st.st_mtime, dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return f"sha256 {h.hexdigest()[:12]}, {st.st_size / 1e6:.0f} MB, built {built}"


def machine_facts() -> dict:
    model = "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key = line.split(":")[0].strip()
                if key in ("model name", "Model", "Hardware", "cpu model"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        gst = subprocess.run(["gst-launch-1.0", "--version"], capture_output=True, text=True, timeout=10).stdout
        gst_version = next((l.split()[-1] for l in gst.splitlines() if l.startswith("GStreamer")), gst.strip())
    except (OSError, subprocess.TimeoutExpired):
        gst_version = "unknown"
    try:
        with open("/proc/meminfo") as f:
            mem_kb = int(f.readline().split()[1])
    except (OSError, ValueError, IndexError):
        mem_kb = 0
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                                timeout=10, cwd=here).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], capture_output=True,
                               text=True, timeout=10, cwd=here).stdout.strip()
        if commit and dirty:
            commit += " (with uncommitted changes)"
    except (OSError, subprocess.TimeoutExpired):
        commit = ""
    return {
        "nproc": os.cpu_count(), "cpu_model": model, "gst_version": gst_version,
        "kernel": platform.release(), "arch": platform.machine(), "mem_gb": mem_kb / 1024 / 1024,
        "commit": commit or "unknown", "loadavg": os.getloadavg(),
        "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
    }


def mb(kb: int | None) -> str:
    return "n/a" if kb is None else f"{kb / 1024:.1f} MB"


def fmt(v, spec: str) -> str:
    return "n/a" if v is None else format(float(v), spec)


def ms(v) -> str:
    return "n/a" if v is None else f"{float(v):.0f} ms"


def med_max(values: list) -> str:
    vals = [float(v) for v in values if v is not None]
    if not vals:
        return "n/a"
    return f"{statistics.median(vals):.0f} / {max(vals):.0f} ms"


def verdict(ok: bool | None) -> str:
    return "info" if ok is None else ("PASS" if ok else "FAIL")


def build_rows(apps: list[dict], refs: list[dict]) -> list[tuple[str, str, str, str]]:
    first = apps[0]
    a_pcts = [a["steady"]["cpu_pct"] for a in apps]
    r_pcts = [r["steady"]["cpu_pct"] for r in refs]
    ratios = [a / r if r > 0 else float("inf") for a, r in zip(a_pcts, r_pcts)]
    ratio = statistics.median(ratios)
    pooled = sum(a["steady"]["cpu_s"] for a in apps) / max(sum(r["steady"]["cpu_s"] for r in refs), 1e-9)
    hwm = max((a["hwm_kb"] for a in apps if a["hwm_kb"] is not None), default=None)
    shorts = first["shorts"]
    longs = [a["stopped"] for a in apps]
    n = len(apps)
    long_s = statistics.median(a["recorded_wall_s"] for a in apps)
    frame_diffs = [abs(a["probe"]["video"]["frames"] - r["probe"]["video"]["frames"]) / max(r["probe"]["video"]["frames"], 1)
                   for a, r in zip(apps, refs)]
    frames = ", ".join(f"{a['probe']['video']['frames']} vs {r['probe']['video']['frames']}" for a, r in zip(apps, refs))
    per_round = "median of " + ", ".join(f"{x:.3f}" for x in ratios) if n > 1 else "1 round"
    lm = (lambda vals: med_max(vals)) if n > 1 else (lambda vals: ms(vals[0]))
    lm_label = f" (median / max of {n})" if n > 1 else ""
    return [
        ("Idle CPU, appliance (not recording)", f"{first['idle']['cpu_pct']:.1f} % of one core", "—", "info"),
        ("Recording CPU, appliance (steady state)", f"{statistics.median(a_pcts):.1f} % of one core", "—", "info"),
        ("Recording CPU, gst-launch reference (steady state)", f"{statistics.median(r_pcts):.1f} % of one core", "—", "info"),
        ("**CPU ratio appliance / gst-launch**", f"{ratio:.3f} ({per_round}; pooled {pooled:.3f})",
         f"≤ {TARGET_CPU_RATIO:.2f}", verdict(ratio <= TARGET_CPU_RATIO)),
        ("Recording CPU, appliance, whole start→stop (round 1)",
         f"{first['total']['cpu_s']:.2f} CPU-s in {first['total']['wall_s']:.1f} s", "—", "info"),
        ("**Peak RSS, appliance (VmHWM)**", mb(hwm), f"< {TARGET_PEAK_RSS_MB:.0f} MB",
         verdict(hwm is not None and hwm / 1024 < TARGET_PEAK_RSS_MB)),
        ("Max sampled VmRSS, appliance, while recording",
         mb(max((a["record_rss_max_kb"] or 0 for a in apps), default=None)), "—", "info"),
        ("VmRSS, appliance, idle", mb(first["idle_rss_kb"]), "—", "info"),
        ("Peak RSS, gst-launch reference (VmHWM)", mb(max(r["hwm_kb"] for r in refs)), "—", "info"),
        (f"Start latency, {long_s:.0f} s recording{lm_label}", lm([x.get("start_latency_ms") for x in longs]), "—", "info"),
        (f"Stop latency, {long_s:.0f} s recording{lm_label}", lm([x.get("stop_latency_ms") for x in longs]), "—", "info"),
        (f"`ctl record stop` wall time, {long_s:.0f} s recording{lm_label}", lm([a["stop_wall_ms"] for a in apps]),
         "—", "info"),
        (f"Start latency, {SHORT_RUNS}× {SHORT_S:.0f} s recordings (median / max)",
         med_max([x["start_latency_ms"] for x in shorts]), "—", "info"),
        (f"Stop latency, {SHORT_RUNS}× {SHORT_S:.0f} s recordings (median / max)",
         med_max([x["stop_latency_ms"] for x in shorts]), "—", "info"),
        (f"`ctl record stop` wall time, {SHORT_RUNS}× {SHORT_S:.0f} s recordings (median / max)",
         med_max([x["stop_wall_ms"] for x in shorts]), "—", "info"),
        ("Dropped frames, appliance (all recordings)",
         f"{sum(int(x.get('dropped_frames') or 0) for x in longs) + sum(int(x['dropped'] or 0) for x in shorts)}",
         "—", "info"),
        ("Equal work: video frames, appliance vs gst-launch", f"{frames} (worst {100 * max(frame_diffs):.1f} %)",
         f"within {100 * TARGET_FRAME_MATCH:.0f} %", verdict(max(frame_diffs) <= TARGET_FRAME_MATCH)),
    ]


def table(rows: list[tuple[str, str, str, str]]) -> str:
    lines = ["| Metric | Value | Target | Result |", "|---|---|---|---|"]
    lines += [f"| {m} | {v} | {t} | {r} |" for m, v, t, r in rows]
    return "\n".join(lines)


def probe_table(apps: list[dict], refs: list[dict]) -> str:
    lines = ["| Round | Run | Container | Video | Audio | Size |", "|---|---|---|---|---|---|"]
    for i, (a, r) in enumerate(zip(apps, refs), 1):
        for name, p in (("appliance", a["probe"]), ("gst-launch", r["probe"])):
            v, au = p["video"], p.get("audio")
            fps = v["frames"] / v["duration_s"] if v["duration_s"] == v["duration_s"] and v["duration_s"] else float("nan")
            audio = f"{au['codec']} {au['sample_rate']} Hz, {au['duration_s']:.2f} s" if au else "no audio"
            lines.append(f"| {i} | {name} | {p['duration_s']:.2f} s | {v['codec']} {v.get('profile') or ''} "
                         f"{v['width']}x{v['height']}, {v['frames']} frames, {v['duration_s']:.2f} s ({fps:.2f} fps) "
                         f"| {audio} | {p['size_bytes'] / 1e6:.1f} MB |")
    return "\n".join(lines)


def rounds_table(apps: list[dict], refs: list[dict]) -> str:
    lines = ["| Round | Appliance CPU | gst-launch CPU | Ratio | Appliance / gst-launch VmHWM "
             "| Other load (appliance / gst-launch window) |",
             "|---|---|---|---|---|---|"]
    for i, (a, r) in enumerate(zip(apps, refs), 1):
        ratio = a["steady"]["cpu_pct"] / r["steady"]["cpu_pct"] if r["steady"]["cpu_pct"] > 0 else float("inf")
        lines.append(f"| {i} | {a['steady']['cpu_pct']:.1f} % ({a['steady']['cpu_s']:.2f} CPU-s) "
                     f"| {r['steady']['cpu_pct']:.1f} % ({r['steady']['cpu_s']:.2f} CPU-s) | {ratio:.3f} "
                     f"| {mb(a['hwm_kb'])} / {mb(r['hwm_kb'])} "
                     f"| {a['steady']['other_pct']:.0f} % / {r['steady']['other_pct']:.0f} % |")
    return "\n".join(lines)


def threads_table(app: dict, ref: dict) -> str:
    columns = [("Appliance, recording", app["steady"]["threads"]), ("gst-launch, recording", ref["steady"]["threads"])]
    if "idle" in app:
        columns.append(("Appliance, idle", app["idle"]["threads"]))
    lines = ["| " + " | ".join(f"{title} | CPU" for title, _ in columns) + " |", "|---" * 2 * len(columns) + "|"]
    for i in range(max(len(rows) for _, rows in columns)):
        cells = [f"`{rows[i][0]}` | {rows[i][1]:.1f} %" if i < len(rows) else " | " for _, rows in columns]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


# bench_features.py keeps its own section of the same file between these markers; keep it when rewriting.
FEATURES_START, FEATURES_END = "<!-- features:start -->", "<!-- features:end -->"


def preserved_sections(out: str) -> str:
    try:
        old = open(out).read()
    except OSError:
        return ""
    if FEATURES_START in old and FEATURES_END in old:
        i, j = old.index(FEATURES_START), old.index(FEATURES_END) + len(FEATURES_END)
        return "\n" + old[i:j] + "\n"
    return ""


def write_report(out: str, args, m: dict, apps: list[dict], refs: list[dict], rows, retries: int) -> str:
    first = apps[0]
    st = first["stopped"]
    n = len(apps)
    noise = max([first["idle"]["other_pct"]] + [x["steady"]["other_pct"] for x in apps + refs])
    noise_note = ("" if noise < 25 else
                  f"\n> **Noisy run:** other processes used up to {noise:.0f} % of one core during a measurement "
                  "window (see *Per round*); re-run `make bench` on a quiet machine before trusting the CPU figures.\n")
    retry_note = ("" if not retries else
                  f"\n> {retries} round(s) were retried because another process stopped the daemon (clean exit "
                  "after SIGTERM/SIGINT not sent by the benchmark).\n")
    rounds_arg = "" if args.rounds == 3 else f" --rounds {args.rounds}"
    text = f"""# Benchmarks

How much the appliance daemon costs on top of the GStreamer work it drives: CPU and memory while idle and while
recording, and how long starting and stopping a recording take. The reference is the same recording graph run as a
single `gst-launch-1.0 -e` pipeline, so the CPU ratio measures the daemon's own overhead (control socket, Swift
runtime, pad probes, the input-selector with its black filler source, the raw tee and the thumbnail frame tap)
rather than the cost of encoding.

**Which encoder**: every section runs the daemon with `[video] encoder = "x264"` pinned (Tests/Benchmarks/harness.py),
the encoder its gst-launch-1.0 reference runs, so that the ratios compare the same work; the *Encoders* section
measures each encoder, and `auto` (the default: openh264 here), against gst-launch running the same fragment.

This file is generated by `Tests/Benchmarks/bench.py`; do not edit it by hand. Reproduce with:

```sh
make bench
# which builds the release binary and runs (then bench_features.py, which adds its own section at the end):
swift build -c release --scratch-path .build-release --product appliance
python3 Tests/Benchmarks/bench.py --binary .build-release/release/appliance --out docs/BENCHMARKS.md --seconds {args.seconds:g}{rounds_arg}
```

The script exits 0 even when a target is missed (it reports, it does not gate) and non-zero only when something
broke (the daemon did not start or died, a command failed, an output file is missing).

## Machine

| | |
|---|---|
| Date | {m['date']} |
| Commit | {m['commit']} |
| Binary | {m['binary']} |
| CPU | {m['cpu_model']} |
| Cores (`nproc`) | {m['nproc']} |
| Memory | {m['mem_gb']:.1f} GB |
| Kernel | {m['kernel']} ({m['arch']}) |
| GStreamer | {m['gst_version']} |
| Load average at start | {' / '.join(f'{x:.2f}' for x in m['loadavg'])} |

Workload: the embedded default config — 1280x720 @ 30 fps `videotestsrc is-live=true pattern=smpte`, x264
(`speed-preset=veryfast tune=zerolatency bitrate=4000 key-int-max=30`, High profile), 48 kHz stereo
`audiotestsrc` → `avenc_aac` 128 kbit/s, fragmented `mp4mux` (a fragment a second, each written through unbuffered:
the default `file_layout`), no preview.
Each recording: {args.seconds:g} s of steady state plus {STARTUP_S:g} s of start-up; {n} round(s).
{noise_note}{retry_note}
## Results

{table(rows)}

CPU is utime + stime of all the process's threads, as a percentage of one core (100 % = one core fully busy; the
machine has {m['nproc']}). "Steady state" is the window from {STARTUP_S:g} s to {args.seconds + STARTUP_S:g} s after the
start of the recording (appliance: after the `record start` request; gst-launch: after the process was started), so
neither figure includes start-up. The CPU ratio is the median of the per-round ratios below; "pooled" is total
appliance CPU over total gst-launch CPU across all rounds. Latencies and memory come from the appliance's own
answers and from `/proc`; see *Method*.

### Per round

Each round is a fresh daemon and a fresh gst-launch, one after the other, never at the same time. "Other load" is
the non-idle CPU of every other process on the machine during the window (approximate: `/proc/stat` ticks minus the
measured process); above ~25 % of one core a build or test run was competing for the {m['nproc']} cores.

{rounds_table(apps, refs)}

Idle window (round 1, {first['idle']['wall_s']:.0f} s): other load {first['idle']['other_pct']:.0f} %.

### Where the CPU goes (round 1)

Per-thread CPU (% of one core) from `/proc/PID/task/*/stat`. GStreamer names a streaming thread after the pad that
drives it (`encoder-queue:src` runs x264 and everything downstream of it up to the next queue); unnamed worker
threads (x264's own, Swift's) keep the process name.

{threads_table(first, refs[0])}

## Output files (ffprobe)

Both sides must do the same work for the CPU comparison to mean anything.

{probe_table(apps, refs)}

The appliance's own account of the round-1 recording: duration {st.get('duration_ms')} ms, {st.get('video_frames')}
video frames, {st.get('dropped_frames')} dropped, A/V offset {fmt(st.get('av_offset_ms'), '.1f')} ms, thumbnail
{'written' if st.get('thumbnail') else 'missing'}.

## Method

1. `appliance run --config <tmp>/appliance.toml --socket <tmp>/ctl.sock` (the embedded defaults but `data_dir` and
   `[video] encoder = "x264"`, the encoder gst-launch runs) is started; the script
   waits until `ctl status` answers ({first['ready_s']:.2f} s here), then lets the daemon settle {SETTLE_S:g} s.
   Before each round the script waits (up to {args.max_wait_quiet:g} s) for other CPU load to drop below 15 % of one core.
2. **Idle CPU** (round 1): `/proc/PID/stat` utime+stime (clock ticks / `SC_CLK_TCK`) over {IDLE_S:g} s with no
   recording. The video encoder is gated off while idle, so this is the cost of the live sources, the raw tee and
   the frame tap — and of the AAC encoder, which is not gated (`audio-queue:src` in the idle column above).
3. **Recording**: `ctl record start`; CPU is sampled at t = {STARTUP_S:g} s and t = {args.seconds + STARTUP_S:g} s,
   then `ctl record stop`. Start latency (request → first frame in the recording bin) and stop latency (last frame
   in the bin → file finalised and moved, i.e. the answer) come from the `record stop` answer; the `ctl record stop`
   wall time is measured by the script around the whole `appliance ctl` process (client start-up included).
   In round 1, {SHORT_RUNS} further recordings of {SHORT_S:g} s give the median and maximum latencies.
4. **Memory**: VmRSS sampled every {RSS_SAMPLE_S:g} s; VmHWM (the kernel's peak RSS) read from `/proc/PID/status`
   after the last recording of the round, before the daemon is stopped with SIGTERM (round 1: exit status
   {first['exit_status']} after {first['shutdown_s']:.2f} s). The reported peak is the largest over the rounds.
5. **Reference**: with the daemon stopped, `gst-launch-1.0 -e` runs the pipeline below for the same window (CPU
   sampled at t = {STARTUP_S:g} s and t = {args.seconds + STARTUP_S:g} s after launch), then gets SIGINT so `-e` sends
   EOS and mp4mux finalises the file (round 1: {refs[0]['finalise_ms']:.0f} ms; lifetime CPU including start-up and
   finalisation {refs[0]['lifetime_cpu_s']:.2f} CPU-s). Its peak RSS is VmHWM, cross-checked with `wait4`
   `ru_maxrss`. It lacks the daemon's input-selector (and its black filler source), raw tee and thumbnail appsink
   branch — that extra work is part of the product and is deliberately counted against the appliance.
6. Both files of every round are checked with `ffprobe` (container index, no decoding).

Run-to-run spread of a single round's CPU ratio on this 2-core VM is several percent, which is why the ratio is a
median over rounds. Only one benchmark may run at a time (the script takes a lock in the temp directory).

Reference pipeline (the same settings the daemon builds from Config/appliance.toml and pipelines/*.gst):

```sh
{pretty_pipeline("<tmp>/reference.mp4")}
```
"""
    text += preserved_sections(out)
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with open(out, "w") as f:
        f.write(text)
    return text


# ---------------------------------------------------------------- main


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--binary", required=True, help="the release appliance binary")
    ap.add_argument("--out", default="docs/BENCHMARKS.md", help="Markdown report to write")
    ap.add_argument("--seconds", type=float, default=20.0, help="steady-state recording length (default 20)")
    ap.add_argument("--rounds", type=int, default=3,
                    help="appliance/gst-launch CPU comparisons, alternated; the ratio is their median (default 3)")
    ap.add_argument("--max-wait-quiet", type=float, default=300.0,
                    help="wait up to this many seconds for other CPU load to go away before each round (default 300)")
    args = ap.parse_args()
    if args.seconds < 2:
        ap.error("--seconds must be at least 2")
    if args.rounds < 1:
        ap.error("--rounds must be at least 1")
    binary = os.path.abspath(args.binary)
    if not os.access(binary, os.X_OK):
        ap.error(f"not an executable: {args.binary} (build it with "
                 "`swift build -c release --scratch-path .build-release --product appliance`)")
    for tool in ("gst-launch-1.0", "ffprobe"):
        if shutil.which(tool) is None:
            ap.error(f"{tool} not found on PATH")

    lock = open(os.path.join(tempfile.gettempdir(), "appliance-bench.lock"), "w")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        log("another benchmark is running (lock held); only one may run at a time")
        return 1

    cleanup = Cleanup()

    def on_signal(signum, _frame):
        raise KeyboardInterrupt(f"signal {signum}")

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGHUP, on_signal)
    try:
        facts = machine_facts()
        facts["binary"] = binary_identity(binary)
        workdir = tempfile.mkdtemp(prefix="appliance-bench-")
        cleanup.dirs.append(workdir)
        apps: list[dict] = []
        refs: list[dict] = []
        retries = 0
        attempt = 0
        while len(apps) < args.rounds:
            r = len(apps) + 1
            attempt += 1
            wait_for_quiet(args.max_wait_quiet)
            log(f"round {r}/{args.rounds}")
            rdir = os.path.join(workdir, f"round-{attempt}")
            try:
                app = measure_appliance(binary, args.seconds, os.path.join(rdir, "appliance"), cleanup, first=(r == 1))
            except ExternalStop as e:
                if retries >= 1:
                    raise
                retries += 1
                log(f"the daemon was stopped by another process; retrying round {r}:\n{e}")
                continue
            ref = measure_reference(args.seconds, rdir, cleanup)
            apps.append(app)
            refs.append(ref)
            # ~20 MB per file: keep the disk footprint of many rounds small.
            shutil.rmtree(os.path.join(rdir, "appliance", "data"), ignore_errors=True)
            with contextlib.suppress(OSError):
                os.remove(ref["probe"]["path"])
        if binary_identity(binary) != facts["binary"]:
            raise BenchError(f"{binary} changed during the run (rebuilt?): the rounds measured different builds")
        rows = build_rows(apps, refs)
        write_report(args.out, args, facts, apps, refs, rows, retries)
        print()
        print(table(rows))
        print()
        print(rounds_table(apps, refs))
        print()
        print(threads_table(apps[0], refs[0]))
        print()
        print(probe_table(apps, refs))
        print()
        log(f"idle window other load {apps[0]['idle']['other_pct']:.0f} % of one core")
        log(f"wrote {args.out}")
        return 0
    except BenchError as e:
        log(f"FAILED: {e}")
        return 1
    except KeyboardInterrupt as e:
        log(f"interrupted ({e}); cleaning up")
        return 1
    finally:
        cleanup.run()


if __name__ == "__main__":
    sys.exit(main())
