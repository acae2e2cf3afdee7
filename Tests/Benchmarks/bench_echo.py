#!/usr/bin/env python3
"""Echo canceller benchmark for `make bench` (issue 49): what keeping the speaker out of the microphone costs.

The daemon runs its live graph from test sources (not recording) with a speaker (`[speaker] pipeline = "fakesink"`)
and `[speaker] echo_cancel` on, then off, alternating over `--rounds` daemons; each window counts every thread's
run time (/proc/PID/task/*/schedstat). Side by side, gst-launch-1.0 runs the equivalent microphone chain
(audiotestsrc ! audioconvert ! audioresample ! 48 kHz stereo [! webrtcdsp ! audioconvert] ! level ! fakesink, with
a webrtcechoprobe fed by a live silence for the reference), with and without the canceller. The canceller's cost
is the difference; the target is that the daemon pays no more for it than gst-launch does (+0.5 % of a core).
How much of the speaker it takes out is measured by the tests (EchoCancelTests, LabSpeakerTests), not here.

    python3 Tests/Benchmarks/bench_echo.py --binary .build-release/release/appliance --out docs/BENCHMARKS.md
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
from harness import Daemon, DaemonError  # noqa: E402

START, END = "<!-- bench_echo:start -->", "<!-- bench_echo:end -->"
SLACK = 0.005  # of a core

CANCELLER = ("webrtcdsp probe=reference echo-cancel=true delay-agnostic=true extended-filter=true noise-suppression=false "
             "gain-control=false high-pass-filter=false ! audioconvert !")


def launch_line(cancel):
    chain = (f"audiotestsrc is-live=true wave=sine freq=440 volume=0.2 ! audioconvert ! audioresample ! "
             f"audio/x-raw,rate=48000,channels=2 ! {CANCELLER if cancel else ''} level interval=100000000 ! fakesink")
    reference = ("audiotestsrc is-live=true wave=silence ! audio/x-raw,format=S16LE,layout=interleaved,rate=48000,channels=1 ! "
                 "webrtcechoprobe name=reference ! fakesink")
    return f"{reference} {chain}"


def measure(pid, warmup, window):
    time.sleep(warmup)
    c0, t0 = run_ns(pid), time.monotonic()
    time.sleep(window)
    return (run_ns(pid) - c0) / (time.monotonic() - t0)


def daemon_cpu(binary, work, cancel, warmup, window):
    directory = os.path.join(work, f"echo-{'on' if cancel else 'off'}")
    shutil.rmtree(directory, ignore_errors=True)
    extra = (f'[speaker]\npipeline = "fakesink"\necho_cancel = "{"on" if cancel else "off"}"\n'
             '[[camera]]\nname = "main"\nsource = "test"\n')
    daemon = Daemon(binary, directory, base_config(os.path.join(directory, "data"), extra, web=None))
    try:
        status = daemon.wait_ready(120)
        if (status.get("speaker") or {}).get("echo_cancel") != cancel:
            raise DaemonError(f"status.speaker.echo_cancel is not {cancel}: {status.get('speaker')}")
        return measure(daemon.proc.pid, warmup, window)
    finally:
        daemon.stop()


def launch_cpu(cancel, warmup, window):
    proc = subprocess.Popen(["gst-launch-1.0", "-q"] + launch_line(cancel).split(), stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    try:
        cpu = measure(proc.pid, warmup, window)
        if proc.poll() is not None:
            raise DaemonError(f"gst-launch-1.0 ended: {proc.stderr.read().strip()[:300]}")
        return cpu
    finally:
        proc.terminate()
        proc.wait(10)


def run(binary, work, rounds, warmup, window):
    cpu = {("appliance", True): [], ("appliance", False): [], ("gst-launch-1.0", True): [], ("gst-launch-1.0", False): []}
    for _ in range(rounds):
        for cancel in (True, False):
            cpu[("appliance", cancel)].append(daemon_cpu(binary, work, cancel, warmup, window))
            cpu[("gst-launch-1.0", cancel)].append(launch_cpu(cancel, warmup, window))
    return cpu


def report(command, machine, cpu, failure):
    lines = [START, "## Echo canceller: what keeping the speaker out of the microphone costs", "",
             f"Reproduce: `{command}` ({machine}). The daemon's live graph from test sources, not recording, with "
             "`[speaker] echo_cancel` on and off (daemons alternating); gst-launch-1.0 runs the equivalent microphone "
             "chain with and without webrtcdsp. CPU in % of a core, median of the rounds.", ""]
    if failure:
        lines += [f"Failed: {failure}", END]
        return "\n".join(lines)
    med = {key: statistics.median(values) for key, values in cpu.items()}
    cost = {who: med[(who, True)] - med[(who, False)] for who in ("appliance", "gst-launch-1.0")}
    met = cost["appliance"] <= cost["gst-launch-1.0"] + SLACK
    lines += ["| | canceller off | canceller on | the canceller's cost |", "|---|---|---|---|"]
    for who in ("appliance", "gst-launch-1.0"):
        lines.append(f"| {who} | {med[(who, False)] * 100:.1f} % | {med[(who, True)] * 100:.1f} % | {cost[who] * 100:+.1f} % |")
    lines += ["", f"Target: the daemon's cost ≤ gst-launch-1.0's + {SLACK * 100:.1f} % of a core: "
              f"{'met' if met else 'NOT met'}. How much of the speaker it takes out is measured by the tests "
              "(EchoCancelTests on a loopback echo path, LabSpeakerTests on snd-aloop; figures in docs/HARDWARE.md).", END]
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--out", default="docs/BENCHMARKS.md")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--warmup", type=float, default=3.0)
    ap.add_argument("--window", type=float, default=8.0)
    args = ap.parse_args()
    command = f"python3 Tests/Benchmarks/bench_echo.py --binary {args.binary} --out {args.out}"
    cpu, failure = {}, None
    with tempfile.TemporaryDirectory(prefix="bench-echo-") as work:
        try:
            cpu = run(os.path.abspath(args.binary), work, args.rounds, args.warmup, args.window)
            print({f"{who} {'on' if on else 'off'}": [round(x * 100, 1) for x in v] for (who, on), v in cpu.items()}, flush=True)
        except (DaemonError, OSError, subprocess.SubprocessError) as e:
            failure = str(e)
    machine = f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at the end"
    write_section(args.out, report(command, machine, cpu, failure), START, END)
    return 1 if failure else 0


if __name__ == "__main__":
    sys.exit(main())
