#!/usr/bin/env python3
"""Shutter benchmark for `make bench`: key press → the first frame of the new clip, no pre-record (issue 12).

The daemon runs on the default config (test sources, 1280x720@30, x264) with one `[[input]] kind = "evdev"` whose
device is a FIFO: the same reader that reads /dev/input/event*, fed real `struct input_event` records. Each press is
stamped with CLOCK_MONOTONIC when the script writes it (the kernel stamps a real key the same way once the reader
asks for EVIOCSCLOCKID), and `action = "toggle"` with no long or double press fires on the key going down.

For each press two figures are taken:
  - press → `recording_started` received here: the whole input path (read, gesture, `record.toggle` through the
    command seam), the recorder's new row and the recording bin being built and linked, plus the event's delivery;
  - the daemon's own `start_latency_ms` from the stop answer: the recording bin's build → the first frame entering
    it (pipeline clock).
Their sum is the figure judged against the target (≤ 200 ms median). The bin's build is inside both parts, so
the sum slightly overstates the true latency: an upper bound. `ctl record start` with the same daemon is measured
alongside (its start_latency_ms), to show what the key path adds.
Writes its section of docs/BENCHMARKS.md between markers.

    python3 Tests/Benchmarks/bench_input.py --binary .build-release/release/appliance --out docs/BENCHMARKS.md
"""
import argparse
import json
import os
import socket
import statistics
import struct
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_features import Daemon, base_config, write_section  # noqa: E402

START, END = "<!-- input:start -->", "<!-- input:end -->"
TARGET_MS = 200.0
EV_KEY, EV_SYN, KEY_RECORD = 1, 0, 167


def event(kind, code, value, ns):
    """One `struct input_event` (64-bit): timeval (seconds, microseconds), type, code, value."""
    return struct.pack("<qqHHi", ns // 1_000_000_000, (ns // 1000) % 1_000_000, kind, code, value)


def press(ns):
    """A key press (down, SYN) with its release 80 ms later by its own timestamps."""
    up = ns + 80_000_000
    return (event(EV_KEY, KEY_RECORD, 1, ns) + event(EV_SYN, 0, 0, ns)
            + event(EV_KEY, KEY_RECORD, 0, up) + event(EV_SYN, 0, 0, up))


class Events(threading.Thread):
    """The daemon's event stream; each event with the CLOCK_MONOTONIC time it arrived here."""

    def __init__(self, path):
        super().__init__(daemon=True)
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(path)
        self.sock.sendall(b'{"command":"events"}\n')
        self.items, self.cond = [], threading.Condition()

    def run(self):
        buffer = b""
        while True:
            chunk = self.sock.recv(65536)
            if not chunk:
                return
            buffer += chunk
            while b"\n" in buffer:
                line, buffer = buffer.split(b"\n", 1)
                now = time.monotonic_ns()
                message = json.loads(line)
                if "event" in message:
                    with self.cond:
                        self.items.append((now, message["event"], message.get("data", {})))
                        self.cond.notify_all()

    def wait(self, name, after, timeout=10.0):
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                for at, event_name, data in self.items:
                    if event_name == name and at >= after:
                        return at, data
                left = deadline - time.monotonic()
                if left <= 0:
                    raise RuntimeError(f"no {name} event within {timeout} s")
                self.cond.wait(left)


def run(binary, presses):
    work = tempfile.mkdtemp(prefix="bench-input-")
    fifo = os.path.join(work, "keyboard")
    os.mkfifo(fifo)
    config = base_config(os.path.join(work, "data"),
                         f'[[input]]\nkind = "evdev"\ndevice = "{fifo}"\nkey = "KEY_RECORD"\naction = "toggle"\n')
    daemon = Daemon(binary, work, config)
    writer = os.open(fifo, os.O_WRONLY)  # the reader holds it open for reading once the daemon runs
    events = Events(daemon.socket)
    events.start()
    time.sleep(3)  # settle
    keyed, ctl = [], []
    try:
        for _ in range(presses):
            t0 = time.monotonic_ns()
            os.write(writer, press(t0))
            started_at, _ = events.wait("recording_started", t0)
            time.sleep(1.5)
            t1 = time.monotonic_ns()
            os.write(writer, press(t1))
            _, stopped = events.wait("recording_stopped", t1, timeout=30)
            path_ms = (started_at - t0) / 1e6
            keyed.append({"path_ms": path_ms, "start_latency_ms": stopped["start_latency_ms"],
                          "total_ms": path_ms + stopped["start_latency_ms"]})
            time.sleep(0.5)
            daemon.call("record.start")
            time.sleep(1.5)
            ctl.append(daemon.call("record.stop")["start_latency_ms"])
            time.sleep(0.5)
    finally:
        os.close(writer)
        daemon.stop()
    return keyed, ctl


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--out")
    parser.add_argument("--presses", type=int, default=15)
    args = parser.parse_args()
    binary = os.path.abspath(args.binary)
    keyed, ctl = run(binary, args.presses)
    totals = [k["total_ms"] for k in keyed]
    median = statistics.median(totals)
    ok = median <= TARGET_MS
    command = f"python3 Tests/Benchmarks/bench_input.py --binary {args.binary} --out docs/BENCHMARKS.md"

    def med_max(values):
        return f"{statistics.median(values):.1f} / {max(values):.1f} ms"

    section = "\n".join([
        START,
        "## Shutter: key press → first frame of the new clip",
        "",
        f"Reproduce: `{command}` (part of `make bench`). Default config (test sources, 1280x720@30, x264, no",
        "pre-record) with an `[[input]] kind = \"evdev\"` read from a FIFO carrying real `struct input_event` records,",
        f"`action = \"toggle\"` (fires on key down). {len(keyed)} presses to start, each followed by 1.5 s of recording",
        "and a press to stop; each key recording is followed by one started with `record.start` over the socket.",
        "",
        "| Metric | median / max | Target | Result |",
        "|---|---|---|---|",
        f"| **Key press → first frame in the clip's file** (upper bound: the two rows below added) | {med_max(totals)} | ≤ {TARGET_MS:.0f} ms median | {'PASS' if ok else 'FAIL'} |",
        f"| Key press → `recording_started` at the client (input path, row, bin built and linked, event delivery) | {med_max([k['path_ms'] for k in keyed])} | — | info |",
        f"| Recording bin built → first frame in it (`start_latency_ms`), key presses | {med_max([k['start_latency_ms'] for k in keyed])} | — | info |",
        f"| Same, `record.start` over the socket | {med_max(ctl)} | — | info |",
        "",
        "Method: the script stamps each press with CLOCK_MONOTONIC as it writes it into the FIFO (a real key is stamped",
        "by the kernel, in CLOCK_MONOTONIC once the reader sets EVIOCSCLOCKID) and takes the arrival time of the",
        "`recording_started` event on a subscribed socket; the daemon measures the rest with its pipeline clock at the",
        "recording bin's entrance. The recording's first frame is planned 50 ms after the encoder gate opens (see",
        "docs/DESIGN-NOTES.md, \"A start time planned in advance\"), then waits for its slot on the 30 fps grid and",
        "for the encoder.",
        END,
    ])
    if args.out:
        write_section(args.out, section, START, END)
    else:
        print(section)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
