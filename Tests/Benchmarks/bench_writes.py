#!/usr/bin/env python3
"""Storage wear benchmark for `make bench`: bytes the daemon writes per byte of finished clip, write syscalls and
fsyncs per minute, and `record stop` latency, for the two file layouts side by side (`file_layout = "fragmented"`,
the default, and `"reserved"`, the index room in front that is trimmed by a copy at the end), plus gst-launch-1.0's
mp4mux writing the same stream to a file as the floor. Writes its section of docs/BENCHMARKS.md.

    python3 Tests/Benchmarks/bench_writes.py --binary .build-release/release/appliance --out docs/BENCHMARKS.md

Each scenario runs both layouts at once (two daemons, same picture, same moment), so they share the machine's load.
"""
import argparse
import glob
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_features import Daemon, base_config, write_section  # noqa: E402

START, END = "<!-- writes:start -->", "<!-- writes:end -->"
LAYOUTS = ("fragmented", "reserved")
# A moving zone plate: x264 cannot compress it below the configured 4 Mbit/s, and it predicts it from frame to frame
# (a keyframe a second, P-frames between) as it would a camera's picture.
PICTURE = """[video]
width = 640
height = 360
framerate = 30
bitrate_kbps = 4000
[[camera]]
name = "main"
source = "pipeline"
pipeline = "videotestsrc is-live=true pattern=zone-plate kx2=20 ky2=20 kt=1"
"""
# The still SMPTE bars with their patch of noise: x264's scene-cut decision once made an I-frame every ~3 frames of
# it, and mp4mux a fragment (and the daemon an fsync) at each; a still camera picture with sensor noise is not far.
STILL = PICTURE.replace("pattern=zone-plate kx2=20 ky2=20 kt=1", "pattern=smpte")
REFERENCE = ("videotestsrc is-live=true pattern=zone-plate kx2=20 ky2=20 kt=1 ! video/x-raw,width=640,height=360,framerate=30/1 ! "
             "x264enc tune=zerolatency bitrate=4000 key-int-max=30 speed-preset=veryfast option-string=scenecut=0 ! h264parse ! queue ! mux. "
             "audiotestsrc is-live=true ! audioconvert ! avenc_aac bitrate=128000 ! aacparse ! queue ! mux. "
             "mp4mux name=mux fragment-duration=1000 fragment-mode=dash-or-mss ! filesink location={path}")


def io(pid):
    values = {}
    for line in open(f"/proc/{pid}/io"):
        key, value = line.split(":")
        values[key] = int(value)
    return values


def traced(log_path, data_dir):
    """(fsync and fdatasync calls, write calls to files in the data folder) the strace log holds so far. strace -y
    prints each descriptor's path, so the eventfd and pipe writes of the daemon's threads are left out."""
    syncs = writes = 0
    try:
        for line in open(log_path):
            if "fsync(" in line or "fdatasync(" in line:
                syncs += 1
            elif "write" in line and f"<{data_dir}/" in line:
                writes += 1
    except FileNotFoundError:
        pass
    return syncs, writes


def scenario(binary, work, name, seconds, extra, picture=PICTURE):
    """Records `seconds` with each layout at once; returns the figures per layout."""
    runs = {}
    for layout in LAYOUTS:
        folder = os.path.join(work, f"{name}-{layout}")
        os.makedirs(folder)
        trace = os.path.join(folder, "strace.log")
        config = base_config(os.path.join(folder, "data"), f'[recording]\nfile_layout = "{layout}"\n{extra}') + picture
        wrapper = ("strace", "-f", "-qq", "-y", "--seccomp-bpf", "-e", "trace=fsync,fdatasync,write,writev,pwrite64,pwritev",
                   "-e", "signal=none", "-e", "abbrev=all", "-s", "0", "-o", trace)
        data = os.path.realpath(os.path.join(folder, "data"))
        runs[layout] = {"daemon": Daemon(binary, folder, config, wrapper=wrapper), "trace": trace, "data": data}
    results = {}
    try:
        for layout, run in runs.items():
            run["io0"], run["traced0"] = io(run["daemon"].pid), traced(run["trace"], run["data"])
            run["daemon"].call("record.start")
            run["t0"] = time.monotonic()
        time.sleep(seconds)

        def stop(layout, run):
            started = time.monotonic()
            run["stop"] = run["daemon"].call("record.stop")
            run["stop_ms"] = (time.monotonic() - started) * 1000
            run["recorded_s"] = time.monotonic() - run["t0"]
            run["io1"], run["traced1"] = io(run["daemon"].pid), traced(run["trace"], run["data"])
        threads = [threading.Thread(target=stop, args=item) for item in runs.items()]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for layout, run in runs.items():
            items = run["daemon"].call("list", {"page": 1, "per_page": 200})["items"]
            finished = sum(os.path.getsize(i["path"]) for i in items if os.path.exists(i["path"]))
            written = run["io1"]["write_bytes"] - run["io0"]["write_bytes"]
            minutes = run["recorded_s"] / 60
            results[layout] = {
                "clips": len(items), "finished_bytes": finished, "written_bytes": written, "ratio": written / finished,
                "cancelled_bytes": run["io1"]["cancelled_write_bytes"] - run["io0"]["cancelled_write_bytes"],
                "writes_per_min": (run["traced1"][1] - run["traced0"][1]) / minutes,
                "all_writes_per_min": (run["io1"]["syscw"] - run["io0"]["syscw"]) / minutes,
                "syncs_per_min": (run["traced1"][0] - run["traced0"][0]) / minutes,
                "stop_ms": run["stop_ms"], "duration_ms": run["stop"]["duration_ms"],
            }
    finally:
        for run in runs.values():
            run["daemon"].stop()
    return results


def reference(work, seconds):
    """gst-launch-1.0 writing the same kind of stream with mp4mux alone: what the media costs with no daemon."""
    path = os.path.join(work, "reference.mp4")
    proc = subprocess.Popen(["gst-launch-1.0", "-e", *REFERENCE.format(path=path).split()],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while not os.path.exists(path):
        time.sleep(0.01)
    before = io(proc.pid)
    time.sleep(seconds)
    after = None
    proc.send_signal(signal.SIGINT)
    # /proc/PID/io is gone once the process exits: read it while the EOS is being written, then wait.
    while proc.poll() is None:
        try:
            after = io(proc.pid)
        except OSError:
            break
        time.sleep(0.005)
    proc.wait(30)
    written = after["write_bytes"] - before["write_bytes"]
    return {"finished_bytes": os.path.getsize(path), "written_bytes": written, "ratio": written / os.path.getsize(path)}


def report(results, ref, command):
    def row(metric, a, b, target, ok):
        return f"| {metric} | {a} | {b} | {target} | {'PASS' if ok else 'FAIL' if ok is not None else 'info'} |"
    mb = lambda n: f"{n / 1e6:,.1f} MB"  # noqa: E731
    lines = [START, "", "## Storage wear: bytes written per byte of clip, syncs, `record stop` latency", "",
             f"Measured by `{command}` (part of `make bench`), release build, same machine as above. Both layouts "
             "record at the same time in each scenario (two daemons).", "",
             "| Metric | fragmented (default) | reserved (before) | Target | Result |", "|---|---|---|---|---|"]
    for key, label in (("clip30", "a 30 s clip"), ("still30", "a 30 s clip of a still, noisy picture"), ("clip600", "a 10-minute clip"),
                       ("loop", "10 s loop segments, 60 s")):
        f, r = results[key]["fragmented"], results[key]["reserved"]
        lines.append(row(f"Bytes written by the daemon / bytes of finished clip, {label}",
                         f"{f['ratio']:.3f} ({mb(f['written_bytes'])} / {mb(f['finished_bytes'])})",
                         f"{r['ratio']:.3f} ({mb(r['written_bytes'])} / {mb(r['finished_bytes'])})", "≤ 1.05", f["ratio"] <= 1.05))
    for key, label in (("clip30", "30 s clip"), ("still30", "30 s still, noisy picture"), ("clip600", "10-minute clip"), ("loop", "loop segments")):
        f, r = results[key]["fragmented"], results[key]["reserved"]
        lines.append(row(f"Write syscalls to the data folder / fsyncs per minute, {label}",
                         f"{f['writes_per_min']:,.0f} / {f['syncs_per_min']:.0f}", f"{r['writes_per_min']:,.0f} / {r['syncs_per_min']:.0f}",
                         "info", None))
    s30, s600 = results["clip30"], results["clip600"]
    lines.append(row("`record stop` latency, 30 s clip", f"{s30['fragmented']['stop_ms']:.0f} ms", f"{s30['reserved']['stop_ms']:.0f} ms", "info", None))
    lines.append(row("`record stop` latency, 10-minute clip", f"{s600['fragmented']['stop_ms']:.0f} ms", f"{s600['reserved']['stop_ms']:.0f} ms",
                     "≈ the 30 s clip's (≤ 2×, or within 300 ms)",
                     s600["fragmented"]["stop_ms"] <= max(2 * s30["fragmented"]["stop_ms"], s30["fragmented"]["stop_ms"] + 300)))
    lines.append(row("gst-launch-1.0 mp4mux alone (same stream, fragmented), 30 s: bytes written / bytes of file",
                     f"{ref['ratio']:.3f} ({mb(ref['written_bytes'])} / {mb(ref['finished_bytes'])})", "", "the floor", None))
    lines += ["", "Method: `write_bytes`, `cancelled_write_bytes` and `syscw` from `/proc/PID/io` of each daemon from just "
              "before `record start` to the answer of `record stop`; `write_bytes` counts every page the process dirtied "
              "(media, indexes, the SQLite database and its WAL, thumbnails), and again for a page dirtied after it was "
              "synced. Write calls (write, writev, pwrite64, pwritev on a descriptor whose path is in the data folder) "
              "and fsync/fdatasync calls are counted by `strace -f -y --seccomp-bpf` around the daemon (the thread "
              "wake-ups' eventfd and pipe writes, which `syscw` counts too, are left out). The finished bytes are the sizes of the clips the recording left. The picture is "
              "a 640x360 moving zone plate at 4 Mbit/s (which x264 cannot compress below its target and predicts "
              "from frame to frame, as a camera's picture), or the still SMPTE bars with their noise patch, with 128 kbit/s AAC. "
              "`record stop` latency is the socket round trip of `record.stop`, which answers once the file is "
              "finished and moved into recordings/.", "", END]
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--out", default="docs/BENCHMARKS.md")
    ap.add_argument("--long-s", type=float, default=600)
    args = ap.parse_args()
    args.binary = os.path.abspath(args.binary)  # the daemons run in folders of their own
    if not shutil.which("strace"):
        sys.exit("bench_writes needs strace (apt-get install strace)")
    command = f"python3 Tests/Benchmarks/bench_writes.py --binary {os.path.relpath(args.binary)} --out {args.out}"
    work = tempfile.mkdtemp(prefix="appliance-writes-")
    try:
        ref = reference(work, 30)
        print("reference:", json.dumps(ref), flush=True)
        results = {}
        for key, seconds, extra, picture in (("clip30", 30, "", PICTURE), ("still30", 30, "", STILL), ("loop", 60, "segment_s = 10.0\n", PICTURE),
                                             ("clip600", args.long_s, "", PICTURE)):
            results[key] = scenario(args.binary, work, key, seconds, extra, picture)
            print(key, json.dumps(results[key]), flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    write_section(args.out, report(results, ref, command), START, END)
    return 0


if __name__ == "__main__":
    sys.exit(main())
