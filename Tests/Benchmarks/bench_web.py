#!/usr/bin/env python3
"""Web dashboard benchmark for `make bench`: the live view, what the live branch and the web server cost, a 1 GiB
clip download against nginx, and the recordings pages at 100,000 clips. Default config otherwise (test sources,
1280x720@30, x264 4 Mbit/s); `[web] listen = "127.0.0.1:0"` (the bound port comes from `status.web.url`) with a
token_file, every request sending `Authorization: Bearer`.

  latency    /live.mjpeg at the default live size and rate (640x360, 15 fps), read here over a raw socket
             (chunked transfer and multipart parsed by hand): each part's arrival is the moment the recv() that
             completed its JPEG returned; its age is that minus `X-Capture-Time` (the frame's capture, mapped to the
             wall clock by the daemon; same machine, same clock). Idle and recording, the first 5 parts skipped (the
             first one may be the newest frame kept from before the stream opened).
  cpu        two daemons side by side over the same windows, both recording: one with a /live.mjpeg stream open
             (read here) against one with none; and web on with no viewer against `[web] listen = "off"` (the live
             branch and the server must cost nothing without a viewer). Every thread's run time from
             /proc/PID/task/*/schedstat (ns), alternating which daemon starts first. A daemon that does not start
             (as `listen = "off"` did when this was written) is reported in the table, not retried. Optional
             `--baseline-binary`: a build from before the dashboard, against web on with no viewer (branch + server).
  download   a 1 GiB clip: the library is seeded with `appliance dev seed` (real rows, an empty file for each) and
             the newest row's file is filled with 1 GiB of random bytes (the responder does not parse it); fetched
             with curl from /media/<id>/video and from nginx (sendfile on, its own config in a temp dir) serving the
             same file on 127.0.0.1, alternating, after one unmeasured download from each (page cache warm).
  pages      GET /recordings?page=N and /api/recordings?page=N&per_page=20 on the same 100,000 rows, curl's
             time_starttransfer over loopback, median of 10 per page.

Writes its section of docs/BENCHMARKS.md between markers.

    python3 Tests/Benchmarks/bench_web.py --binary .build-release/release/appliance --out docs/BENCHMARKS.md
"""
import argparse
import json
import math
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_features import base_config, write_section  # noqa: E402
from bench_service import run_ns, status_kb  # noqa: E402
from harness import Daemon as HarnessDaemon, call  # noqa: E402

START, END = "<!-- bench_web:start -->", "<!-- bench_web:end -->"
TOKEN = "bench-web-token-0123456789abcdef"
LATENCY_TARGET_MS = 200.0
CPU_TARGET = 1.01
DOWNLOAD_TARGET = 0.9
PAGE_TARGET_MS = 20.0
PAGES = (1, 100, 1000, 5000)
CLIP_BYTES = 1 << 30
CAMERA = '[[camera]]\nname = "main"\nsource = "test"\n'


def pct(values, q):
    """The q-quantile (0..1), nearest rank."""
    s = sorted(values)
    return s[min(len(s) - 1, max(0, math.ceil(q * len(s)) - 1))]


class Daemon(HarnessDaemon):
    """One daemon on its own folder and socket. `web`: serve on a free loopback port with the bench's token, or
    `[web] listen = "off"`. `data`: a data folder to use (seeded) instead of a fresh one."""

    def __init__(self, binary, work, name, web=True, data=None, web_section=True):
        self.name = name
        directory = os.path.join(work, name)
        shutil.rmtree(directory, ignore_errors=True)
        os.makedirs(directory)
        token_file = os.path.join(directory, "token")
        with open(token_file, "w") as f:
            f.write(TOKEN + "\n")
        os.chmod(token_file, 0o600)
        listen = f'listen = "127.0.0.1:0"\ntoken_file = "{token_file}"' if web else 'listen = "off"'
        self.web, self.url = web, None
        # No section: a binary from before the dashboard.
        super().__init__(binary, directory, base_config(data or os.path.join(directory, "data"), CAMERA, web=listen if web_section else None))

    def wait_ready(self):
        status = super().wait_ready(120, until=lambda s: s["ready"] and (not self.web or (s.get("web") or {}).get("url")))
        if self.web:
            self.url = status["web"]["url"]
        return status

    @property
    def port(self):
        return urllib.parse.urlsplit(self.url).port


# ---------------------------------------------------------------------------------------------------- live view

class LiveReader(threading.Thread):
    """Reads /live.mjpeg until stopped: for each part (time it arrived, X-Capture-Time in s, X-Sequence, bytes)."""

    def __init__(self, port, path="/live.mjpeg"):
        super().__init__(daemon=True)
        self.port, self.path = port, path
        self.parts, self.error, self.stop_flag = [], None, False
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock.settimeout(0.5)
        self.sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {TOKEN}\r\n"
                          f"Accept: */*\r\n\r\n".encode())

    def chunks(self):
        """(bytes, arrival time) as recv() returns them, until stopped."""
        while not self.stop_flag:
            try:
                data = self.sock.recv(1 << 20)
            except socket.timeout:
                continue
            now = time.time()
            if not data:
                return
            yield data, now

    def body(self):
        """The response body's bytes (chunked transfer decoded) with the arrival time of the recv they came in."""
        raw = b""
        source = self.chunks()
        for data, now in source:
            raw += data
            if b"\r\n\r\n" in raw:
                break
        head, raw = raw.split(b"\r\n\r\n", 1)
        lines = head.decode("latin-1").split("\r\n")
        if " 200 " not in lines[0] + " ":
            raise RuntimeError("live.mjpeg: " + lines[0])
        headers = {k.strip().lower(): v.strip() for k, v in (line.split(":", 1) for line in lines[1:] if ":" in line)}
        self.content_type = headers.get("content-type", "")
        if headers.get("transfer-encoding", "").lower() != "chunked":
            if raw:
                yield raw, now
            for data, now in source:
                yield data, now
            return
        # chunked: size line, data, CRLF
        pending, need = raw, None
        while True:
            progressed = True
            while progressed:
                progressed = False
                if need is None:
                    if b"\r\n" in pending:
                        line, pending = pending.split(b"\r\n", 1)
                        need = int(line.split(b";")[0], 16)
                        if need == 0:
                            return
                        need += 2  # the CRLF after the data
                        progressed = True
                else:
                    take = pending[:need]
                    if take:
                        pending = pending[len(take):]
                        need -= len(take)
                        # leave out the CRLF ending the chunk
                        data = take if need >= 2 else take[:len(take) - (2 - need)]
                        if data:
                            yield data, now
                        if need == 0:
                            need = None
                        progressed = True
            try:
                data, now = next(source)
            except StopIteration:
                return
            pending += data

    def run(self):
        try:
            boundary = None
            buffer = b""
            for data, now in self.body():
                if boundary is None:
                    boundary = b"--" + self.content_type.split("boundary=", 1)[1].strip('"').encode()
                buffer += data
                while True:
                    start = buffer.find(boundary)
                    if start < 0:
                        break
                    head_end = buffer.find(b"\r\n\r\n", start)
                    if head_end < 0:
                        break
                    headers = {}
                    for line in buffer[start + len(boundary):head_end].decode("latin-1").split("\r\n"):
                        if ":" in line:
                            k, v = line.split(":", 1)
                            headers[k.strip().lower()] = v.strip()
                    length = int(headers["content-length"])
                    if len(buffer) < head_end + 4 + length:
                        break
                    jpeg = buffer[head_end + 4:head_end + 4 + length]
                    self.parts.append((now, int(headers["x-capture-time"]) / 1000, int(headers["x-sequence"]),
                                       len(jpeg), jpeg[:2] == b"\xff\xd8"))
                    buffer = buffer[head_end + 4 + length:]
        except Exception as e:  # noqa: BLE001 — reported by the caller
            if not self.stop_flag:
                self.error = e

    def close(self):
        self.stop_flag = True
        self.join(timeout=5)
        self.sock.close()


def wait_parts(reader, count, timeout):
    deadline = time.monotonic() + timeout
    while len(reader.parts) < count and time.monotonic() < deadline and reader.error is None and reader.is_alive():
        time.sleep(0.05)
    if reader.error:
        raise reader.error
    if len(reader.parts) < count:
        raise RuntimeError(f"live.mjpeg: {len(reader.parts)} parts of {count} in {timeout} s")


def latency_stats(parts, skip=5):
    measured = parts[skip:]
    ages = [(arrived - captured) * 1000 for arrived, captured, _, _, _ in measured]
    span = measured[-1][0] - measured[0][0]
    seqs = [p[2] for p in measured]
    return {"frames": len(measured), "median_ms": statistics.median(ages), "p95_ms": pct(ages, 0.95),
            "max_ms": max(ages), "min_ms": min(ages), "fps": (len(measured) - 1) / span,
            "seq_skipped": (seqs[-1] - seqs[0] + 1) - len(seqs), "jpeg_kb": statistics.mean(p[3] for p in measured) / 1024,
            "all_jpeg": all(p[4] for p in measured)}


def latency_bench(binary, work, frames):
    d = Daemon(binary, work, "latency")
    out = {}
    try:
        d.wait_ready()
        time.sleep(2)
        for phase in ("idle", "recording"):
            if phase == "recording":
                call(d.socket, "record.start")
                time.sleep(2)
            reader = LiveReader(d.port)
            reader.start()
            try:
                wait_parts(reader, frames + 5, timeout=frames / 5 + 30)
                viewers = call(d.socket, "status")["web"]
            finally:
                reader.close()
            out[phase] = latency_stats(reader.parts)
            out[phase]["viewers_during"] = viewers.get("live_viewers", viewers.get("liveViewers"))
            print("latency", phase, json.dumps(out[phase]), flush=True)
        call(d.socket, "record.stop")
        time.sleep(1)
        out["viewers_after"] = (call(d.socket, "status")["web"] or {})
    finally:
        d.stop()
    return out


# ---------------------------------------------------------------------------------------------------------- CPU

PAIRINGS = {"viewer": ("viewer", "none"), "web": ("web-on", "web-off"), "baseline": ("web-on", "before-web")}


def measure(daemons, window):
    c0, t0 = [run_ns(d.proc.pid) for d in daemons], time.monotonic()
    time.sleep(window)
    dt = time.monotonic() - t0
    return [(run_ns(d.proc.pid) - c) / dt for d, c in zip(daemons, c0)]


def cpu_round(binary, work, pairing, index, window, baseline=None):
    """One round of `pairing`; "before-web" is `baseline`, a build from before the dashboard, on the same config
    without the [web] section."""
    modes = PAIRINGS[pairing] if index % 2 == 0 else tuple(reversed(PAIRINGS[pairing]))
    daemons, reader = [], None
    try:
        for m in modes:
            daemons.append(Daemon(baseline if m == "before-web" else binary, work, f"{m}-{index}", web=(m == "web-on" or m in ("viewer", "none")),
                                  web_section=(m != "before-web")))
        for d in daemons:
            d.wait_ready()
        for d in daemons:
            call(d.socket, "record.start")
        viewer = next((d for d, m in zip(daemons, modes) if m == "viewer"), None)
        if viewer:
            reader = LiveReader(viewer.port)
            reader.start()
        time.sleep(4)  # settle
        before = len(reader.parts) if reader else 0
        cpu = measure(daemons, window)
        frames = (len(reader.parts) - before) if reader else None
        if reader and reader.error:
            raise reader.error
        for d in daemons:
            call(d.socket, "record.stop")
    finally:
        if reader:
            reader.close()
        for d in daemons:
            d.stop()
    result = {m: c for m, c in zip(modes, cpu)}
    if frames is not None:
        result["viewer_fps"] = frames / window
    return result


# ----------------------------------------------------------------------------------------------------- download

NGINX_CONF = """daemon off;
master_process off;
worker_processes 1;
pid {dir}/nginx.pid;
error_log {dir}/error.log warn;
events {{ worker_connections 64; }}
http {{
    access_log off;
    sendfile on;
    tcp_nopush on;
    default_type application/octet-stream;
    client_body_temp_path {dir}/body;
    proxy_temp_path {dir}/proxy;
    fastcgi_temp_path {dir}/fastcgi;
    uwsgi_temp_path {dir}/uwsgi;
    scgi_temp_path {dir}/scgi;
    server {{
        listen 127.0.0.1:{port};
        location / {{ root {root}; }}
    }}
}}
"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Nginx:
    def __init__(self, work, root):
        self.dir = os.path.join(work, "nginx")
        os.makedirs(self.dir, exist_ok=True)
        self.port = free_port()
        conf = os.path.join(self.dir, "nginx.conf")
        with open(conf, "w") as f:
            f.write(NGINX_CONF.format(dir=self.dir, port=self.port, root=root))
        self.log = open(os.path.join(self.dir, "stderr.log"), "w")
        self.proc = subprocess.Popen(["/usr/sbin/nginx", "-c", conf, "-p", self.dir, "-e", os.path.join(self.dir, "error.log")],
                                     stdout=self.log, stderr=self.log)
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError("nginx did not start: " + open(os.path.join(self.dir, "error.log")).read()[-2000:]
                                       + open(self.log.name).read()[-2000:])
                time.sleep(0.05)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


def curl(url, fmt, headers=()):
    args = ["curl", "-s", "-S", "-o", "/dev/null", "--fail", "-w", fmt]
    for h in headers:
        args += ["-H", h]
    return subprocess.run(args + [url], check=True, capture_output=True, text=True).stdout


def download(url, pid, headers=()):
    """(MB/s, CPU seconds the server used) for one download of url."""
    c0 = run_ns(pid)
    out = curl(url, "%{speed_download} %{size_download} %{http_code}", headers)
    cpu = run_ns(pid) - c0
    speed, size, code = out.split()
    if int(float(size)) != CLIP_BYTES or code != "200":
        raise RuntimeError(f"download of {url}: {size} bytes, HTTP {code}")
    return float(speed) / 1e6, cpu


def fill_clip(path):
    with open(path, "wb") as f:
        for _ in range(CLIP_BYTES // (8 << 20)):
            f.write(os.urandom(8 << 20))


# -------------------------------------------------------------------------------------------------------- pages

def page_times(port, path, count=10):
    url = f"http://127.0.0.1:{port}{path}"
    curl(url, "%{http_code}", [f"Authorization: Bearer {TOKEN}"])  # warm
    times = [float(curl(url, "%{time_starttransfer}", [f"Authorization: Bearer {TOKEN}"])) * 1000 for _ in range(count)]
    return statistics.median(times), max(times)


def api_get(port, path):
    out = subprocess.run(["curl", "-s", "-S", "--fail", "-H", f"Authorization: Bearer {TOKEN}", f"http://127.0.0.1:{port}{path}"],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def library_bench(binary, work, downloads):
    data = os.path.join(work, "library-data")
    t0 = time.monotonic()
    subprocess.run([binary, "dev", "seed", "--data-dir", data, "--rows", "100000"], check=True, capture_output=True)
    seeded = time.monotonic() - t0
    d = Daemon(binary, work, "library", data=data)
    nginx = None
    out = {"seed_s": seeded}
    try:
        d.wait_ready()
        time.sleep(2)
        # pages
        pages = {}
        for n in PAGES:
            html = page_times(d.port, f"/recordings?page={n}")
            api = page_times(d.port, f"/api/recordings?page={n}&per_page=20")
            body = api_get(d.port, f"/api/recordings?page={n}&per_page=20")
            elapsed = [api_get(d.port, f"/api/recordings?page={n}&per_page=20")for _ in range(5)]
            elapsed = [e.get("elapsed_ms", e.get("elapsedMs")) for e in elapsed]
            page = subprocess.run(["curl", "-s", "-S", "--fail", "-H", f"Authorization: Bearer {TOKEN}",
                                   f"http://127.0.0.1:{d.port}/recordings?page={n}"], check=True, capture_output=True).stdout
            pages[n] = {"html": html, "api": api, "items": len(body["items"]), "total": body["total"],
                        "html_cards": page.count(b'class="card"'), "html_kb": len(page) / 1024,
                        "db_ms": statistics.median(elapsed)}
            print("page", n, json.dumps(pages[n]), flush=True)
        out["pages"] = pages
        # the 1 GiB clip: the newest row's (empty) file filled with random bytes
        clip = call(d.socket, "list", {"page": 1, "per_page": 1})["items"][0]
        out["clip_id"] = clip["id"]
        t0 = time.monotonic()
        fill_clip(clip["path"])
        out["fill_s"] = time.monotonic() - t0
        nginx = Nginx(work, os.path.dirname(clip["path"]))
        ours = (f"http://127.0.0.1:{d.port}/media/{clip['id']}/video", d.proc.pid, [f"Authorization: Bearer {TOKEN}"])
        theirs = (f"http://127.0.0.1:{nginx.port}/{urllib.parse.quote(os.path.basename(clip['path']))}", nginx.proc.pid, [])
        download(*ours)
        download(*theirs)  # page cache warm, both paths exercised once
        rss0, hwm0 = status_kb(d.proc.pid, "VmRSS") / 1024, status_kb(d.proc.pid, "VmHWM") / 1024
        runs = {"daemon": [], "nginx": []}
        for i in range(downloads):
            order = (("daemon", ours), ("nginx", theirs)) if i % 2 == 0 else (("nginx", theirs), ("daemon", ours))
            for name, target in order:
                runs[name].append(download(*target))
            print("download", i, json.dumps({k: v[-1] for k, v in runs.items()}), flush=True)
        out["downloads"] = runs
        out["rss_mb"] = (rss0, hwm0, status_kb(d.proc.pid, "VmRSS") / 1024, status_kb(d.proc.pid, "VmHWM") / 1024)
    finally:
        if nginx:
            nginx.stop()
        d.stop()
    return out


# ------------------------------------------------------------------------------------------------------- report

def report(command, latency, cpu_rounds, failures, lib, window, machine, baseline):
    lines = [START, "", "## Web dashboard: live view, its cost, clip download, recordings pages", "",
             f"Measured by `{command}` (`make bench` runs it without `--baseline-binary`), release build, on this shared 2-core machine "
             f"({machine}), while other work ran on it: side-by-side pairs and alternation are there to even that "
             "out. Default config (test sources, 1280x720@30, x264 4 Mbit/s), `[web] listen = \"127.0.0.1:0\"` with a "
             "token_file; every request sends `Authorization: Bearer`.", ""]

    def verdict(ok):
        return "PASS" if ok else "**FAIL**"

    lines += ["| Metric | Value | Target | Result |", "|---|---|---|---|"]
    for phase in ("idle", "recording"):
        s = latency[phase]
        lines.append(f"| Live view 640x360 @ 15 fps, {phase}: capture → last byte of the part here, median / p95 / max "
                     f"({s['frames']} frames) | {s['median_ms']:.0f} / {s['p95_ms']:.0f} / {s['max_ms']:.0f} ms | "
                     f"median ≤ {LATENCY_TARGET_MS:.0f} ms | {verdict(s['median_ms'] <= LATENCY_TARGET_MS)} |")
        lines.append(f"|   delivered frame rate, sequence numbers skipped, mean JPEG size | {s['fps']:.2f} fps, "
                     f"{s['seq_skipped']}, {s['jpeg_kb']:.1f} KiB |  | info |")

    def ratio_row(label, pairing, key_with, key_without, target):
        rounds = [r for p, r in cpu_rounds if p == pairing]
        if not rounds:
            why = failures.get(pairing, "not run").strip().splitlines()[-1][:300].replace("|", "/")
            return f"| {label} | not measured: {why} | {'≤ %.2f' % target if target else ''} | {'**FAIL**' if target else 'info'} |"
        a = statistics.mean(r[key_with] for r in rounds)
        b = statistics.mean(r[key_without] for r in rounds)
        each = [r[key_with] / r[key_without] for r in rounds]
        spread = f"{min(each):.3f}–{max(each):.3f}"
        judged = verdict(a / b <= target) if target else "info"
        return (f"| {label}: {a:.3f} / {b:.3f} cores | **{a / b:.3f}** (per round {spread}) | "
                f"{'≤ %.2f' % target if target else ''} | {judged} |")

    vf = [r["viewer_fps"] for p, r in cpu_rounds if p == "viewer"]
    lines.append(ratio_row("Recording CPU, one live viewer / none", "viewer", "viewer", "none", None))
    lines.append(ratio_row("Recording CPU, web on with no viewer / `listen = \"off\"`", "web", "web-on", "web-off", CPU_TARGET))
    if baseline:
        lines.append(ratio_row("Recording CPU, web on with no viewer / a build from before the dashboard", "baseline",
                               "web-on", "before-web", None))
    d = [s for s, _ in lib["downloads"]["daemon"]]
    n = [s for s, _ in lib["downloads"]["nginx"]]
    dc = [c for _, c in lib["downloads"]["daemon"]]
    nc = [c for _, c in lib["downloads"]["nginx"]]
    ratio = statistics.median(d) / statistics.median(n)
    lines.append(f"| 1 GiB clip download, daemon / nginx (median of {len(d)} each, MB/s = 10⁶ B/s) | "
                 f"{statistics.median(d):.0f} / {statistics.median(n):.0f} MB/s = **{ratio:.2f}** | ≥ {DOWNLOAD_TARGET} × nginx | "
                 f"{verdict(ratio >= DOWNLOAD_TARGET)} |")
    lines.append(f"|   each run, daemon: {' / '.join(f'{x:.0f}' for x in d)}; nginx: {' / '.join(f'{x:.0f}' for x in n)} MB/s | "
                 f"server CPU per GiB: daemon {statistics.median(dc):.2f} s, nginx {statistics.median(nc):.2f} s |  | info |")
    r0, h0, r1, h1 = lib["rss_mb"]
    lines.append(f"|   daemon RSS before → after the downloads (peak before → after) | {r0:.0f} → {r1:.0f} MB "
                 f"({h0:.0f} → {h1:.0f} MB) |  | info |")
    worst = max(max(p["html"][0], p["api"][0]) for p in lib["pages"].values())
    for kind, label in (("html", "`GET /recordings?page=N`"), ("api", "`GET /api/recordings?page=N&per_page=20`")):
        medians = " / ".join(f"{lib['pages'][p][kind][0]:.1f}" for p in PAGES)
        maxes = " / ".join(f"{lib['pages'][p][kind][1]:.1f}" for p in PAGES)
        ok = all(lib["pages"][p][kind][0] <= PAGE_TARGET_MS for p in PAGES)
        lines.append(f"| {label} at 100,000 clips, pages {' / '.join(map(str, PAGES))}: time to first byte, median of 10 "
                     f"(max) | {medians} ms ({maxes}) | ≤ {PAGE_TARGET_MS:.0f} ms, flat | {verdict(ok)} |")
    db = " / ".join(f"{lib['pages'][p]['db_ms']:.2f}" for p in PAGES)
    lines.append(f"|   the list query's own `elapsed_ms` (API, same pages) | {db} ms |  | info |")
    cards = " / ".join(str(lib['pages'][p]['html_cards']) for p in PAGES)
    items = " / ".join(str(lib['pages'][p]['items']) for p in PAGES)
    lines.append(f"|   entries on each page: HTML (10 per page, its default); API | {cards}; {items} |  | info |")
    if "web" in failures:
        lines += ["", "`[web] listen = \"off\"`: the daemon does not start. `WebService.run()` returns at once when the web "
                  "is off, and the ServiceGroup (default `successTerminationBehavior: .cancelGroup`) takes a service that "
                  "returns for a failure: `Service failed(WebService(off))`, exit status 1."]
    lines += ["", f"Live view: {latency['recording']['frames']} frames per phase (after 5 skipped), read by a raw socket "
              "(TCP_NODELAY) that parses the chunked transfer and the multipart by hand; a part's arrival is when the "
              "recv() completing its JPEG returned, its age that minus `X-Capture-Time` (the daemon maps the frame's "
              "running time to the wall clock; same machine, same clock). The live viewer count is back to 0 after the "
              f"stream is closed: {(latency['viewers_after'] or {}).get('live_viewers', (latency['viewers_after'] or {}).get('liveViewers'))}.", "",
              f"CPU: {len(vf)} rounds of each pairing; two daemons side by side over the same {window:.0f} s window, both "
              "recording, alternating which starts first; every thread's run time from /proc/PID/task/*/schedstat (ns). "
              f"The viewer's stream delivered {min(vf):.1f}–{max(vf):.1f} fps during the windows; the bench's reader is "
              "not part of the daemon's figure. The live branch is in the graph whatever `[web] listen` says (its probe "
              "drops every frame while nobody watches), so web on against `listen = \"off\"` is the server's cost"
              + (f"; against a build from before the dashboard (`{baseline}`, same config without `[web]`) it is the "
                 "branch's and the server's" if baseline else "") + ".", "",
              f"Download: `appliance dev seed` filled the library with 100,000 rows ({lib['seed_s']:.0f} s; an empty file "
              "each); the newest row's file was then filled with 1 GiB of random bytes (the responder streams bytes and "
              f"does not parse them; {lib['fill_s']:.1f} s) and fetched by id from `/media/<id>/video`, and the same file "
              "from nginx 1.22 on 127.0.0.1 (`sendfile on; tcp_nopush on;` one worker, no master, its own config in a temp "
              "dir). `curl -s -o /dev/null -w '%{speed_download}'`, one unmeasured download from each first (page cache "
              "warm), then alternating. Server CPU is the server process's run time over each download. The daemon kept "
              "its test camera running (idle, not recording) meanwhile.", "",
              "Pages: the same daemon and 100,000 rows; `curl -w '%{time_starttransfer}'` over loopback (connect and "
              "request included), one unmeasured request per URL first. The recordings page lists grouped entries "
              "(its default), the API plain clips.", "", END]
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--out", default="docs/BENCHMARKS.md")
    ap.add_argument("--frames", type=int, default=200, help="live-view parts measured per phase")
    ap.add_argument("--rounds", type=int, default=4, help="rounds of each CPU pairing")
    ap.add_argument("--window", type=float, default=15.0, help="seconds of each CPU window")
    ap.add_argument("--downloads", type=int, default=7, help="measured downloads from each server")
    ap.add_argument("--baseline-binary", help="optional: a build from before the web dashboard (no live branch, no "
                    "server), compared with web on and no viewer")
    ap.add_argument("--only", choices=["latency", "cpu", "library"], help="run one part and print it (no write)")
    args = ap.parse_args()
    for tool in ("curl", "/usr/sbin/nginx"):
        if shutil.which(tool) is None:
            print(f"bench_web: {tool} is not installed (packaging/install-deps.sh --test installs it)", file=sys.stderr)
            return 1
    binary = os.path.abspath(args.binary)
    command = f"python3 Tests/Benchmarks/bench_web.py --binary {args.binary} --out {args.out}"
    if args.baseline_binary:
        command += f" --baseline-binary {args.baseline_binary}"
    work = tempfile.mkdtemp(prefix="appliance-web-")
    latency, cpu_rounds, lib, failures = None, [], None, {}
    try:
        if args.only in (None, "latency"):
            latency = latency_bench(binary, work, args.frames)
        if args.only in (None, "cpu"):
            pairings = [p for p in PAIRINGS if p != "baseline" or args.baseline_binary]
            for i in range(args.rounds):
                for pairing in list(pairings):
                    try:
                        r = cpu_round(binary, work, pairing, i, args.window,
                                      os.path.abspath(args.baseline_binary) if args.baseline_binary else None)
                    except RuntimeError as e:
                        # reported, not retried: `listen = "off"` failing to start is a finding in itself
                        print("cpu", pairing, "failed:", e, flush=True)
                        failures[pairing] = str(e)
                        pairings.remove(pairing)
                        continue
                    print("cpu", pairing, json.dumps(r), flush=True)
                    cpu_rounds.append((pairing, r))
        if args.only in (None, "library"):
            lib = library_bench(binary, work, args.downloads)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if args.only:
        return 0
    machine = f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at the end"
    write_section(args.out, report(command, latency, cpu_rounds, failures, lib, args.window, machine, args.baseline_binary), START, END)
    return 0


if __name__ == "__main__":
    sys.exit(main())
