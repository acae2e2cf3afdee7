#!/usr/bin/env python3
"""Feature benchmarks for `make bench`: the recordings library at 100,000 rows, camera switching, and WebDAV backup
(against `curl -T` to the same loopback server). Writes its section of docs/BENCHMARKS.md (between markers),
leaving the engine section written by bench.py in place.

    python3 Tests/Benchmarks/bench_features.py --binary .build-release/release/appliance --out docs/BENCHMARKS.md
"""
import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Daemon as HarnessDaemon  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
START, END = "<!-- features:start -->", "<!-- features:end -->"
TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


class Daemon(HarnessDaemon):
    """A daemon on `config`, started and waited for: `first_status` is the first status its socket answered,
    `ready` the seconds from launch to it."""

    def __init__(self, binary, workdir, config, wrapper=()):
        super().__init__(binary, workdir, config, wrapper=wrapper)
        self.first_status = self.wait_ready(120, until=lambda status: True)
        self.ready = self.ready_s


def base_config(data_dir, extra="", web='listen = "127.0.0.1:0"'):
    """`web`: the [web] section's lines (None: no section). Port 0 by default: each daemon's dashboard on a free
    port, so daemons side by side never contend for 127.0.0.1:8080."""
    web_section = "" if web is None else f"[web]\n{web}\n"
    return (f'data_dir = "{data_dir}"\nlog_level = "warning"\n[audio]\nsource = "test"\n[preview]\nsink = "none"\n'
            f'{web_section}{extra}\n')


def reconciled_status(daemon, timeout=120):
    """The status once the background reconcile (rows against files) is done."""
    deadline = time.monotonic() + timeout
    while True:
        status = daemon.call("status")
        if status["recovery"].get("reconciled") or time.monotonic() > deadline:
            return status
        time.sleep(0.1)


def library_bench(binary, work):
    data = os.path.join(work, "library")
    t0 = time.monotonic()
    subprocess.run([binary, "dev", "seed", "--data-dir", data, "--rows", "100000"], check=True, capture_output=True)
    seeded = time.monotonic() - t0
    results = {"seed_s": seeded}
    for attempt in ("first", "second"):
        daemon = Daemon(binary, work, base_config(data) + '[[camera]]\nname = "main"\nsource = "test"\n')
        try:
            status = reconciled_status(daemon)
            results[f"recovery_ms_{attempt}"] = status["recovery"]["duration_ms"]
            results[f"ready_s_{attempt}"] = daemon.ready
            if attempt == "second":
                results["total"] = status["recordings_total"]
                results["db_bytes"] = status["database_bytes"]
                pages = {}
                for page in (1, 2, 100, 1000, 5000, 9999, 10000):
                    times = [daemon.call("list", {"page": page, "per_page": 10})["elapsed_ms"] for _ in range(20)]
                    pages[page] = (statistics.median(times), max(times))
                results["pages"] = pages
                results["rss_mb"] = rss_mb(daemon.proc.pid)
        finally:
            daemon.stop()
    # The disk holding the recordings is not mounted: its folder is empty, the database still lists 100,000 clips.
    card = os.path.join(work, "card")
    os.rename(os.path.join(data, "recordings"), card)
    daemon = Daemon(binary, work, base_config(data) + '[[camera]]\nname = "main"\nsource = "test"\n')
    try:
        status = reconciled_status(daemon)
        results["missing_ready_s"] = daemon.ready
        results["missing_storage"] = status["storage"]
        results["missing_failed_rows"] = len(status["recovery"]["failed"])
        results["missing_recovery_ms"] = status["recovery"]["duration_ms"]
        states = {item["state"] for item in daemon.call("list", {"page": 1, "per_page": 1000})["items"]}
        results["missing_states"] = sorted(states)
    finally:
        daemon.stop()
    with open(daemon.log.name) as log:
        lines = log.read().splitlines()
    results["missing_log_lines"] = len(lines)
    return results


def ffprobe_pts(path):
    out = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time",
                          "-of", "csv=p=0", path], capture_output=True, text=True, check=True).stdout
    return [float(x) for x in out.split()]


def demo_cameras():
    text = open(os.path.join(ROOT, "Config/demo.toml")).read()
    return text[text.index("[[camera]]"):text.index("[preview]")]


def cpu_percent(daemon, seconds=10.0):
    """The daemon's CPU in % of one core over `seconds`, after 2 s to settle."""
    time.sleep(2)
    c0, t0 = cpu_seconds(daemon.proc.pid), time.monotonic()
    time.sleep(seconds)
    return 100 * (cpu_seconds(daemon.proc.pid) - c0) / (time.monotonic() - t0)


def idle_cpu(daemon, seconds=10.0):
    return cpu_percent(daemon, seconds)


def recording_cpu(daemon, seconds=10.0):
    daemon.call("record.start", {"title": "bench cpu"})
    try:
        return cpu_percent(daemon, seconds)
    finally:
        daemon.call("record.stop")


def switching_bench(binary, work):
    data = os.path.join(work, "switching")
    results = {}
    daemon = Daemon(binary, work, base_config(data) + demo_cameras())
    try:
        results["idle_cpu_two_cameras"] = idle_cpu(daemon)
        results["recording_cpu_two_cameras"] = recording_cpu(daemon)
        before = daemon.call("status")["output"]
        daemon.call("record.start", {"title": "bench switching"})
        latencies = []
        for _ in range(10):
            time.sleep(0.7)
            latencies.append(daemon.call("switch", {"next": True}).get("latency_ms") or float("nan"))
        time.sleep(0.7)
        stop = daemon.call("record.stop")
        after = daemon.call("status")["output"]
        pts = ffprobe_pts(stop["path"])
        gaps = [b - a for a, b in zip(pts, pts[1:])]
        results.update(switches=10, latencies=latencies, max_gap_ms=max(gaps) * 1000,
                       nonincreasing=sum(1 for g in gaps if g <= 0), frames=len(pts), duration_s=pts[-1] - pts[0] + 1 / 30,
                       filled=after["filled_slots"] - before["filled_slots"],
                       collisions=after["slot_collisions"] - before["slot_collisions"],
                       missing=after["missing_slots"] - before["missing_slots"], dropped=stop["dropped_frames"])
    finally:
        daemon.stop()
    # Two cameras of the same kind, both always on: a switch is a plain selection.
    same = "".join(f'[[camera]]\nname = "{n}"\nsource = "test"\npattern = "{p}"\nalways_on = true\n' for n, p in (("a", "smpte"), ("b", "ball")))
    daemon = Daemon(binary, work, base_config(os.path.join(work, "always")) + same)
    try:
        time.sleep(2)
        before = daemon.call("status")["output"]
        daemon.call("record.start")
        always_latencies = []
        for _ in range(10):
            time.sleep(0.5)
            always_latencies.append(daemon.call("switch", {"next": True}).get("latency_ms") or float("nan"))
        stop = daemon.call("record.stop")
        after = daemon.call("status")["output"]
        pts = ffprobe_pts(stop["path"])
        results.update(always_filled=after["filled_slots"] - before["filled_slots"],
                       always_collisions=after["slot_collisions"] - before["slot_collisions"],
                       always_missing=after["missing_slots"] - before["missing_slots"],
                       always_gap_ms=max(b - a for a, b in zip(pts, pts[1:])) * 1000, always_latencies=always_latencies)
    finally:
        daemon.stop()
    daemon = Daemon(binary, work, base_config(os.path.join(work, "one")) + '[[camera]]\nname = "front"\nsource = "pipeline"\n'
                    + 'pipeline = "videotestsrc is-live=true pattern=smpte ! capsfilter caps=video/x-raw,width=640,height=480,framerate=25/1"\n')
    try:
        results["idle_cpu_one_camera"] = idle_cpu(daemon)
        results["recording_cpu_one_camera"] = recording_cpu(daemon)
    finally:
        daemon.stop()
    return results


def padded_mp4(path, size):
    """A valid short MP4 followed by a 'free' box, so the file is `size` bytes (sparse on disk)."""
    subprocess.run(["gst-launch-1.0", "-q", "-e", "videotestsrc", "num-buffers=30", "!", "video/x-raw,format=I420,width=320,height=240",
                    "!", "x264enc", "!", "h264parse", "!", "mp4mux", "!", "filesink", f"location={path}"], check=True)
    head = os.path.getsize(path)
    with open(path, "ab") as f:
        f.write((size - head).to_bytes(4, "big") + b"free")
        f.truncate(size)


def adopted_clip(data, id, size):
    """A padded MP4 of `size` bytes in the data folder's recordings, for start-up recovery to adopt as `id`; its path."""
    folder = os.path.join(data, "recordings/2026/01/03")
    os.makedirs(folder)
    media = os.path.join(folder, f"{id}.mp4")
    padded_mp4(media, size)
    return media


def backup_bench(binary, work, size):
    port = random.randint(40000, 50000)
    dav_root = os.path.join(work, "dav")
    os.makedirs(dav_root)
    server = subprocess.Popen([sys.executable, os.path.join(ROOT, "Tests/WebDAV/webdav_server.py"), "--root", dav_root,
                               "--port", str(port), "--user", "bench", "--password", "bench-pw"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    control = f"http://127.0.0.1:{port}/__control"
    for _ in range(100):
        if subprocess.run(["curl", "-s", "-o", "/dev/null", f"http://127.0.0.1:{port}/__log"]).returncode == 0:
            break
        time.sleep(0.1)
    results = {"size": size}
    try:
        data = os.path.join(work, "backup")
        media = adopted_clip(data, "20000000-3000-4000-8000-000000000001", size)
        password = os.path.join(work, "pw")
        with open(password, "w") as f:
            f.write("bench-pw")
        os.chmod(password, 0o600)
        subprocess.run(["curl", "-s", "-X", "POST", "-d", '{"full": true}', control], check=True, capture_output=True)
        daemon = Daemon(binary, work, base_config(data, f'[backup]\nurl = "http://127.0.0.1:{port}/dav/bench"\nusername = "bench"\n'
                                                  f'password_file = "{password}"\nretry_base_s = 0.2\n') + '[[camera]]\nname = "main"\nsource = "test"\n')
        try:
            results.update(timed_upload(daemon, lambda: subprocess.run(["curl", "-s", "-X", "POST", "-d", '{"full": false}', control],
                                                                         check=True, capture_output=True)))
        finally:
            daemon.stop()
        t0 = time.monotonic()
        subprocess.run(["curl", "-s", "-f", "-u", "bench:bench-pw", "-T", media, f"http://127.0.0.1:{port}/dav/bench/curl.mp4"], check=True)
        results["curl_s"] = time.monotonic() - t0
    finally:
        server.kill()
    return results


def timed_upload(daemon, release):
    """The daemon's upload of the one clip its paused queue holds: once paused (and settled), the RSS baseline;
    then `release()` lifts the server's refusal and `backup.retry` starts the clock, which stops when the job is done.
    {daemon_s, baseline_mb, peak_mb}"""
    while not daemon.call("backup.status")["paused"]:
        time.sleep(0.05)
    time.sleep(1)
    baseline = rss_mb(daemon.proc.pid)
    release()
    started = time.monotonic()
    daemon.call("backup.retry")
    peak = baseline
    while daemon.call("backup.status")["counts"].get("done", 0) < 1:
        peak = max(peak, rss_mb(daemon.proc.pid))
        time.sleep(0.05)
    return {"daemon_s": time.monotonic() - started, "baseline_mb": baseline, "peak_mb": peak}


def report(lib, sw, bk, command):
    mib = bk["size"] / 1048576
    daemon_rate, curl_rate = mib / bk["daemon_s"], mib / bk["curl_s"]
    worst_page = max(v[1] for v in lib["pages"].values())
    lat = sorted(sw["latencies"])
    def row(metric, value, target, ok):
        return f"| {metric} | {value} | {target} | {'PASS' if ok else 'FAIL' if ok is not None else 'info'} |"
    lines = [START, "", "## Library, camera switching, backup", "",
             f"Measured by `{command}` (part of `make bench`), release build, same machine and run as above.", "",
             "| Metric | Value | Target | Result |", "|---|---|---|---|",
             row("`list` of any page, 100,000 rows, time in the daemon (worst of 20 per page)", f"{worst_page:.2f} ms", "< 5 ms", worst_page < 5),
             row("  pages 1 / 2 / 100 / 1000 / 5000 / 9999 / 10000 (median)", " / ".join(f"{lib['pages'][p][0]:.2f}" for p in (1, 2, 100, 1000, 5000, 9999, 10000)) + " ms", "", None),
             row("Start-up recovery scan, 100,000 rows and files, nothing to recover", f"{lib['recovery_ms_second']:.0f} ms (first start {lib['recovery_ms_first']:.0f} ms)", "< 1 s", lib["recovery_ms_second"] < 1000),
             row("Start-up to the first `status` answer, 100,000 rows and files (spawn → answer over the socket)", f"{lib['ready_s_second'] * 1000:.0f} ms", "< 1 s", lib["ready_s_second"] < 1),
             row("Same, the recordings' storage missing (folder empty, 100,000 rows)", f"{lib['missing_ready_s'] * 1000:.0f} ms (recovery {lib['missing_recovery_ms']:.0f} ms)", "< 1 s", lib["missing_ready_s"] < 1),
             row("  storage missing: status, rows changed, log lines at `warning`", f"{lib['missing_storage']['state']} ({lib['missing_storage'].get('missing_files')} files), {lib['missing_failed_rows']} rows, {lib['missing_log_lines']} line(s); states listed: {', '.join(lib['missing_states'])}", "missing, 0, 1", lib["missing_storage"]["state"] == "missing" and lib["missing_failed_rows"] == 0 and lib["missing_log_lines"] <= 1),
             row("Database size per 100,000 rows", f"{lib['db_bytes'] / 1e6:.1f} MB", "", None),
             row("Daemon RSS with 100,000 rows", f"{lib['rss_mb']:.1f} MB", "", None),
             row("Largest output frame gap during 10 switches", f"{sw['max_gap_ms']:.1f} ms (1 interval = 33.3 ms)", "≤ 1 frame interval", sw["max_gap_ms"] <= 33.4),
             row("Output slots left empty per switch", f"{sw['missing'] / sw['switches']:.1f}", "0", sw["missing"] == 0),
             row("Frames repeated per switch (an output slot filled with the last frame again)", f"{sw['filled'] / sw['switches']:.1f}", "0", sw["filled"] == 0),
             row("Frames dropped per switch (slot already taken) / at the encoder", f"{sw['collisions'] / sw['switches']:.1f} / {sw['dropped']}", "0", sw["collisions"] == 0 and sw["dropped"] == 0),
             row("Switch latency, request → new camera's first frame at the encoder (median / max)", f"{statistics.median(lat):.0f} / {lat[-1]:.0f} ms", "", None),
             row("Same, two always-on cameras of one kind: largest gap / repeated / dropped per switch",
                 f"{sw['always_gap_ms']:.1f} ms / {sw['always_filled'] / 10:.1f} / {sw['always_collisions'] / 10:.1f}", "≤ 33.3 ms / 0 / 0",
                 sw["always_gap_ms"] <= 33.4 and sw["always_filled"] == 0 and sw["always_collisions"] == 0),
             row("Switch latency, always-on cameras (median / max)", f"{statistics.median(sw['always_latencies']):.1f} / {max(sw['always_latencies']):.1f} ms", "", None),
             row("PTS strictly increasing in the switched recording", f"{sw['nonincreasing']} violations, {sw['frames']} frames in {sw['duration_s']:.2f} s", "0", sw["nonincreasing"] == 0),
             row("CPU while recording, one active + one standby camera (demo.toml) / one camera", f"{sw['recording_cpu_two_cameras']:.1f} % / {sw['recording_cpu_one_camera']:.1f} % of a core", "", None),
             row("Idle CPU, one active + one standby camera (demo.toml) / one camera", f"{sw['idle_cpu_two_cameras']:.1f} % / {sw['idle_cpu_one_camera']:.1f} % of a core", "", None),
             row(f"Upload throughput, {mib:.0f} MiB to a loopback WebDAV server: daemon / `curl -T`", f"{daemon_rate:.0f} / {curl_rate:.0f} MiB/s = {daemon_rate / curl_rate:.2f}", "≥ 0.9", daemon_rate / curl_rate >= 0.9),
             row(f"Daemon RSS during the {mib:.0f} MiB upload (baseline → peak)", f"{bk['baseline_mb']:.0f} → {bk['peak_mb']:.0f} MB (+{bk['peak_mb'] - bk['baseline_mb']:.1f})", "growth < 32 MB", bk["peak_mb"] - bk["baseline_mb"] < 32),
             "",
             "Method: the library is seeded with `appliance dev seed` (real rows through the Library, an empty file per row), and "
             "start-up is timed from spawning `appliance run` to the first `status` answered on the socket (polled every 10 ms); "
             "for the missing storage, recordings/ is moved away before the start. "
             "`list` times are the daemon's own `elapsed_ms`. Switching uses Config/demo.toml's two cameras (640x480@25 and "
             "960x540@15) while recording; gaps come from ffprobe on the file, the per-switch counters from `status.output`. "
             "The upload is a valid MP4 padded to size with a `free` box, adopted at start-up; the daemon's time runs from "
             "`backup.retry` to the job being done (PUT, MOVE, PROPFIND, thumbnail, sidecar); curl uploads the same file to the same "
             "server right after.", "", END]
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--out", default="docs/BENCHMARKS.md")
    ap.add_argument("--upload-mib", type=int, default=1024)
    args = ap.parse_args()
    command = f"python3 Tests/Benchmarks/bench_features.py --binary {args.binary} --out {args.out}"  # as typed
    args.binary = os.path.abspath(args.binary)  # the daemons run in their own folders (make bench passes it relative)
    work = tempfile.mkdtemp(prefix="appliance-bench-")
    try:
        lib = library_bench(args.binary, work)
        print("library:", json.dumps(lib), flush=True)
        sw = switching_bench(args.binary, work)
        print("switching:", json.dumps(sw), flush=True)
        bk = backup_bench(args.binary, work, args.upload_mib * 1048576)
        print("backup:", json.dumps(bk), flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    write_section(args.out, report(lib, sw, bk, command), START, END)
    return 0


def run_section_bench(description, prefix, measure, start, end):
    """The common `main` of a bench that writes one section: `--binary` and `--out`, a temporary folder, then
    `measure(binary, work)` → (what to print as JSON, the section's text) written between the markers."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--binary", required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix=prefix)
    try:
        printable, text = measure(os.path.abspath(args.binary), work)
        print(json.dumps(printable), flush=True)
        write_section(args.out, text, start, end)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


def measured_at():
    """"Measured at commit X on DATE." for the checkout this runs from (the binary is built from it by `make bench`)."""
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT).stdout.strip()
    return f"Measured at commit {head or '?'} on {time.strftime('%Y-%m-%d')}."


def write_section(out, section, start, end):
    """Replaces the text between the markers in `out` (or appends it), and prints it. A section that does not say
    when it was measured gets that line under its heading."""
    if "Measured at commit" not in section:
        lines = section.split("\n")
        heading = next((i for i, line in enumerate(lines) if line.startswith("## ")), None)
        if heading is not None:
            lines[heading + 1:heading + 1] = ["", measured_at()]
            section = "\n".join(lines)
    text = open(out).read() if os.path.exists(out) else "# Benchmarks\n"
    if start in text and end in text:
        text = text[:text.index(start)] + section + text[text.index(end) + len(end):]
    else:
        text = text.rstrip() + "\n\n" + section + "\n"
    with open(out, "w") as f:
        f.write(text)
    print(section)


if __name__ == "__main__":
    sys.exit(main())
