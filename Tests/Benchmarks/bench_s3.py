#!/usr/bin/env python3
"""S3 backup benchmark for `make bench`: a 1 GiB clip uploaded by the daemon to a loopback `rclone serve s3`, against
`rclone copy` of the same file to the same server in the same run, and the daemon's memory meanwhile. Writes its
section of docs/BENCHMARKS.md.

    python3 Tests/Benchmarks/bench_s3.py --binary .build-release/release/appliance --out docs/BENCHMARKS.md
"""
import json
import os
import random
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_features import ROOT, Daemon, adopted_clip, base_config, run_section_bench, timed_upload  # noqa: E402

START, END = "<!-- s3:start -->", "<!-- s3:end -->"
SERVER = os.path.join(ROOT, "Tests/S3/s3_server.py")
KEY, SECRET = "bench-key", "bench-secret"
SIZE = 1 << 30


def start_server(work, port):
    server = subprocess.Popen([sys.executable, SERVER, "serve", "--kind", "rclone", "--port", str(port), "--root",
                               os.path.join(work, "s3"), "--key", KEY, "--secret", SECRET], stdout=subprocess.PIPE, text=True)
    json.loads(server.stdout.readline())  # ready
    return server


def daemon_upload(binary, work, port, media_folder):
    """The daemon's upload of the adopted clip: from `backup.retry` (the bucket made while the queue waited on it)
    to the job done, and its RSS before and during."""
    secret = os.path.join(work, "secret")
    with open(secret, "w") as f:
        f.write(SECRET)
    os.chmod(secret, 0o600)
    backup = (f'[backup]\nurl = "s3://bench/clips"\nendpoint = "http://127.0.0.1:{port}"\naccess_key = "{KEY}"\n'
              f'secret_key_file = "{secret}"\nretry_base_s = 0.2\n')
    daemon = Daemon(binary, work, base_config(media_folder, backup) + '[[camera]]\nname = "main"\nsource = "test"\n')
    try:  # the queue waits on the missing bucket; making it is the release
        return timed_upload(daemon, lambda: subprocess.run([sys.executable, SERVER, "create-bucket", "--port", str(port), "--bucket",
                                                            "bench", "--key", KEY, "--secret", SECRET], check=True, capture_output=True))
    finally:
        daemon.stop()


def rclone_copy(media, port):
    started = time.monotonic()
    subprocess.run(["rclone", "copyto", media, ":s3:bench/rclone/copy.mp4", "--s3-provider", "Other", "--s3-endpoint",
                    f"http://127.0.0.1:{port}", "--s3-access-key-id", KEY, "--s3-secret-access-key", SECRET,
                    "--s3-force-path-style=true", "--s3-region", "us-east-1"], check=True, capture_output=True)
    return time.monotonic() - started


def measure(binary, work):
    port = random.randint(40000, 50000)
    server = start_server(work, port)
    try:
        data = os.path.join(work, "data")
        media = adopted_clip(data, "20000000-3000-4000-8000-000000000053", SIZE)
        results = daemon_upload(binary, work, port, data)
        results["rclone_s"] = rclone_copy(media, port)
    finally:
        server.kill()
        server.wait()
    return results, report(results)


def report(r):
    mib = SIZE / 1048576
    daemon_rate, rclone_rate = mib / r["daemon_s"], mib / r["rclone_s"]
    growth = r["peak_mb"] - r["baseline_mb"]
    def row(metric, value, target, ok):
        return f"| {metric} | {value} | {target} | {'PASS' if ok else 'FAIL'} |"
    return "\n".join([
        START, "", "## S3 backup", "",
        "Measured by `python3 Tests/Benchmarks/bench_s3.py --binary .build-release/release/appliance --out docs/BENCHMARKS.md` "
        "(part of `make bench`), release build.", "",
        "| Metric | Value | Target | Result |", "|---|---|---|---|",
        row(f"Upload throughput, {mib:.0f} MiB to a loopback `rclone serve s3`: daemon / `rclone copyto`",
            f"{daemon_rate:.0f} / {rclone_rate:.0f} MiB/s = {daemon_rate / rclone_rate:.2f}", "≥ 0.9", daemon_rate / rclone_rate >= 0.9),
        row(f"Daemon RSS during the {mib:.0f} MiB upload (baseline → peak)",
            f"{r['baseline_mb']:.0f} → {r['peak_mb']:.0f} MB (+{growth:.1f})", "growth < 32 MB", growth < 32),
        "",
        "Method: the clip is a valid MP4 padded to 1 GiB with a `free` box, adopted at start-up; the queue waits on the "
        "missing bucket while the baseline is taken, then the bucket is made and `backup.retry` starts the clock, which "
        "stops when the job is done (a multipart upload in 8 MiB parts, each hashed with SHA-256 and MD5 before it is "
        "sent, the ETags checked, HEAD, the sidecar). `rclone copyto` (rclone's S3 backend: 5 MiB parts, 4 at once, MD5 "
        "of the file first) then sends the same file to the same server.", "", END])


if __name__ == "__main__":
    sys.exit(run_section_bench("S3 backup benchmark", "appliance-bench-s3-", measure, START, END))
