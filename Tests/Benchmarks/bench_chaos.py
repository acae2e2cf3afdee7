#!/usr/bin/env python3
"""Chaos soak for `make bench` (issue 59, item 7): the daemon under everything that goes wrong at once, for 30 minutes.

- A FIFO camera ("door", 320x240 at 10 fps) whose capture process comes and goes at random: ffmpeg plays opencv-doc's
  vtest.avi (people walking: motion, and a person to track, every few seconds) into the FIFO for 20 to 90 s from a
  random point, then is gone for 5 to 40 s.
- An RTSP camera ("gate", Tests/RTSPCamera: a moving ball) that drops: its server is killed after 30 to 120 s and
  comes back 5 to 30 s later on the same port.
- Recording on motion (pre-roll 2 s, post-roll 3 s), objects on (OpenCV's HOG people detector), a `switch next`
  every 60 to 180 s, and a SIGKILL of the daemon every 5 minutes (started again at once on the same data).

It reports: the activity seen (motion and objects, from the library after the run), how many have their start
covered by a clip (the activity list's `clip`; target: all), the largest step between timestamps inside any clip, the
clips that do not decode (`ffmpeg -v error`; target: none), and the daemon's memory (VmRSS) sampled every 10 s from
minute 5 on, per life between kills.

    python3 Tests/Benchmarks/bench_chaos.py --binary .build-release/release/appliance --out docs/BENCHMARKS.md
"""
import argparse
import glob
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_features import write_section  # noqa: E402
from harness import Daemon, tail  # noqa: E402

START, END = "<!-- chaos:start -->", "<!-- chaos:end -->"
CLIP = "/usr/share/doc/opencv-doc/examples/data/vtest.avi"
SERVER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "RTSPCamera", "rtsp_camera.py")
PIPELINES = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "pipelines"))
W, H, FPS = 320, 240, 10


def config(work, fifo, port):
    return (f'data_dir = "{os.path.join(work, "data")}"\nlog_level = "info"\npipelines_dir = "{PIPELINES}"\n'
            f'[video]\nwidth = {W}\nheight = {H}\nframerate = {FPS}\n'
            f'[audio]\nsource = "test"\n[web]\nlisten = "off"\n[preview]\nsink = "none"\n'
            f'[motion]\nenabled = true\n[objects]\nenabled = true\n'
            f'[recording]\ntrigger = "motion"\npre_record_s = 2.0\npost_record_s = 3.0\n'
            f'[[camera]]\nname = "door"\nsource = "pipeline"\n'
            f'pipeline = "filesrc location={fifo} blocksize={W * H * 3 // 2} ! rawvideoparse width={W} height={H} format=i420 framerate={FPS}/1"\n'
            f'[[camera]]\nname = "gate"\nsource = "rtsp"\nurl = "rtsp://127.0.0.1:{port}/live"\nstart_timeout_s = 5.0\n')


class Chaos:
    """The moving parts, each a thread that runs until `stop` is set; `log` keeps what each did, with its time."""

    def __init__(self, binary, work, minutes, kill_every, seed):
        self.binary, self.work, self.seconds, self.kill_every = binary, work, minutes * 60, kill_every
        self.random = random.Random(seed)
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.log = []
        self.fifo = os.path.join(work, "door.fifo")
        os.mkfifo(self.fifo)
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.config = config(work, self.fifo, self.port)
        self.daemon = None
        self.lives = []  # [(started, pid)]
        self.memory = []  # (t, life, rss_kb)
        self.t0 = time.monotonic()

    def note(self, what):
        with self.lock:
            self.log.append((round(time.monotonic() - self.t0, 1), what))

    def pause(self, low, high):
        return self.stop.wait(self.random.uniform(low, high))

    def start_daemon(self):
        # A folder (log, socket) for each life; the data folder is the same for all.
        self.daemon = Daemon(self.binary, os.path.join(self.work, f"daemon-{len(self.lives) + 1}"), self.config)
        self.daemon.wait_ready(timeout=120)
        self.lives.append((time.monotonic() - self.t0, self.daemon.pid))
        self.note(f"daemon {self.daemon.pid} ready in {self.daemon.ready_s:.1f} s")

    def writer(self):
        """The FIFO camera's capture process, coming and going."""
        while not self.stop.is_set():
            seek, length = self.random.uniform(0, 60), self.random.uniform(20, 90)
            proc = subprocess.Popen(["ffmpeg", "-nostdin", "-v", "error", "-re", "-ss", f"{seek:.1f}", "-stream_loop", "-1",
                                     "-i", CLIP, "-t", f"{length:.1f}", "-vf", f"fps={FPS},scale={W}:{H}", "-f", "rawvideo",
                                     "-pix_fmt", "yuv420p", "-y", self.fifo],
                                    stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            self.note(f"writer comes for {length:.0f} s")
            while proc.poll() is None and not self.stop.is_set():
                time.sleep(0.2)
            if proc.poll() is None:
                proc.terminate()
            proc.wait()
            error = proc.stderr.read().decode(errors="replace").strip().splitlines()
            self.note(f"writer gone (exit {proc.returncode}{': ' + error[-1] if error else ''})")
            if self.pause(5, 40):
                return

    def camera(self):
        """The RTSP camera, dropping now and then."""
        while not self.stop.is_set():
            ready = os.path.join(self.work, "rtsp.ready")
            if os.path.exists(ready):
                os.remove(ready)
            proc = subprocess.Popen(["/usr/bin/python3", SERVER, "--port", str(self.port), "--pattern", "ball", "--width", str(W),
                                     "--height", str(H), "--fps", str(FPS), "--ready-file", ready],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            self.note("rtsp camera up")
            self.pause(30, 120)
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            self.note("rtsp camera dropped")
            if self.pause(5, 30):
                return

    def switcher(self):
        while not self.pause(60, 180):
            try:
                answer = self.daemon.ctl("switch", "--next", timeout=60)
                self.note(f"switch → {answer.get('active')}")
            except Exception as e:  # noqa: BLE001 — a refusal is part of the chaos (no other usable camera)
                self.note(f"switch refused: {str(e)[-120:]}")

    def sampler(self):
        """VmRSS every 10 s, of the daemon that is ready, from a minute into its life (not while one is starting)."""
        while not self.stop.wait(10):
            life = len(self.lives)
            started, pid = self.lives[-1]
            now = time.monotonic() - self.t0
            if now - started < 60 or self.daemon is None or self.daemon.pid != pid:
                continue
            try:
                with open(f"/proc/{pid}/status") as f:
                    rss = next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))
                self.memory.append((now, life, rss))
            except (OSError, StopIteration):
                pass

    def run(self):
        self.start_daemon()
        threads = [threading.Thread(target=t, daemon=True) for t in (self.writer, self.camera, self.switcher, self.sampler)]
        for t in threads:
            t.start()
        next_kill = self.kill_every
        while time.monotonic() - self.t0 < self.seconds:
            time.sleep(1)
            if time.monotonic() - self.t0 >= next_kill:
                next_kill += self.kill_every
                os.kill(self.daemon.pid, signal.SIGKILL)
                self.daemon.proc.wait()
                self.note(f"SIGKILL {self.daemon.pid}")
                self.start_daemon()
            self.daemon.alive()
        self.stop.set()
        for t in threads:
            t.join(timeout=30)


def clip_report(data):
    """Each clip: its path, whether it decodes, and its largest step between video timestamps."""
    clips = []
    for path in sorted(glob.glob(os.path.join(data, "recordings", "**", "*.mp4"), recursive=True)):
        errors = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-f", "null", "-"], capture_output=True, text=True)
        pts = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time",
                              "-of", "csv=p=0", path], capture_output=True, text=True).stdout.split()
        times = [float(t) for t in pts if t.strip() and t.strip() != "N/A"]
        gap = max((b - a for a, b in zip(times, times[1:])), default=0.0)
        clips.append({"path": path, "decodes": errors.returncode == 0 and not errors.stderr.strip(),
                      "error": errors.stderr.strip()[-200:], "gap": gap, "frames": len(times)})
    return clips


def summarise(chaos, activity, clips, warmup_s):
    body = activity.get("activity", activity)
    items = body.get("items", []) if isinstance(body, dict) else body
    covered = [a for a in items if a.get("clip")]
    kinds = {}
    for a in items:
        kinds[a.get("kind")] = kinds.get(a.get("kind"), 0) + 1
    rss = [(t, life, kb) for t, life, kb in chaos.memory if t >= warmup_s]
    per_life = {}
    for t, life, kb in rss:
        per_life.setdefault(life, []).append(kb)
    biggest = max(clips, key=lambda c: c["gap"], default=None)
    return {
        "activity": len(items), "kinds": kinds, "covered": len(covered),
        "uncovered": [{k: a.get(k) for k in ("kind", "label", "camera", "started_at")} for a in items if not a.get("clip")][:10],
        "clips": len(clips), "undecodable": [c for c in clips if not c["decodes"]],
        "gappy": sum(1 for c in clips if c["gap"] > 2.0 / FPS + 0.0005),
        "largest_gap": biggest["gap"] if biggest else 0.0, "largest_gap_clip": os.path.basename(biggest["path"]) if biggest else "",
        "kills": sum(1 for _, what in chaos.log if what.startswith("SIGKILL")),
        "writer_sessions": sum(1 for _, what in chaos.log if what.startswith("writer comes")),
        "drops": sum(1 for _, what in chaos.log if what == "rtsp camera dropped"),
        "switches": sum(1 for _, what in chaos.log if what.startswith("switch")),
        "rss_mb": {life: (min(v) / 1024, max(v) / 1024, v[0] / 1024, v[-1] / 1024) for life, v in sorted(per_life.items())},
    }


def section(command, minutes, r):
    lines = [START, "## Chaos soak (issue 59)", "",
             f"{minutes:.0f} minutes: a FIFO camera whose capture process came {r['writer_sessions']} times and went as "
             f"often, an RTSP camera that dropped {r['drops']} times, {r['switches']} switches, {r['kills']} SIGKILLs (one "
             f"every 5 minutes, the daemon started again at once), recording on motion with objects on. Measured by "
             f"`{command}` (part of `make bench`).", "",
             "| what | figure | target |", "|---|---|---|",
             f"| activity seen (library, after the run) | {r['activity']} ({', '.join(f'{k} {v}' for k, v in sorted(r['kinds'].items()))}) | |",
             f"| its start covered by a clip | {r['covered']} of {r['activity']} | all |",
             f"| clips | {r['clips']} | |",
             f"| clips that do not decode | {len(r['undecodable'])} | none |",
             f"| largest step between timestamps inside a clip | {r['largest_gap']:.3f} s ({r['largest_gap_clip']}) | ≤ 0.2 s (two frames at 10 fps) |",
             f"| clips with a step over 0.2 s | {r['gappy']} of {r['clips']} | none |"]
    for life, (low, high, first, last) in r["rss_mb"].items():
        lines.append(f"| memory (VmRSS) of life {life}, from minute 5 on (and a minute into the life) | {low:.1f}–{high:.1f} MB (first {first:.1f}, last {last:.1f}) | |")
    if r["uncovered"]:
        lines += ["", "Activity without a clip: " + "; ".join(json.dumps(u) for u in r["uncovered"])]
    for c in r["undecodable"]:
        lines.append(f"- does not decode: {os.path.basename(c['path'])}: {c['error']}")
    return "\n".join(lines + [END])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--out", default="docs/BENCHMARKS.md")
    parser.add_argument("--minutes", type=float, default=30)
    parser.add_argument("--kill-every-s", type=float, default=300)
    parser.add_argument("--seed", type=int, default=59)
    parser.add_argument("--keep", action="store_true", help="keep the work folder (its path is printed)")
    args = parser.parse_args()
    if not os.path.exists(CLIP):
        sys.exit(f"no {CLIP} (opencv-doc)")
    work = tempfile.mkdtemp(prefix="appliance-chaos-")
    chaos = Chaos(args.binary, work, args.minutes, args.kill_every_s, args.seed)
    try:
        chaos.run()
        activity = chaos.daemon.ctl("activity", "list", "--kind", "motion,object", "--limit", "1000")
    except Exception:
        print("\n".join(f"{t:7.1f} {what}" for t, what in chaos.log[-30:]))
        print(tail(chaos.daemon.log_path, 60) if chaos.daemon else "")
        raise
    finally:
        if chaos.daemon:
            chaos.daemon.stop()
    clips = clip_report(os.path.join(work, "data"))
    result = summarise(chaos, activity, clips, warmup_s=min(300, args.minutes * 60 / 2))
    print("\n".join(f"{t:7.1f} {what}" for t, what in chaos.log))
    command = f"python3 Tests/Benchmarks/bench_chaos.py --binary {args.binary} --out {args.out}"
    if args.minutes != 30:
        command += f" --minutes {args.minutes:g} --kill-every-s {args.kill_every_s:g}"
    write_section(args.out, section(command, args.minutes, result), START, END)
    if args.keep:
        print(f"work folder: {work}")
    else:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
