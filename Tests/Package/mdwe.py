#!/usr/bin/env python3
"""MemoryDenyWriteExecute, measured: does the daemon record correctly, and at what CPU, when memory may not be
both writable and executable?

systemd's MemoryDenyWriteExecute=yes refuses mmap(PROT_WRITE|PROT_EXEC) and mprotect()/pkey_mprotect() adding
PROT_EXEC (a seccomp filter in systemd 252; prctl(PR_SET_MDWE) on newer systemd and kernels). This applies the
kernel's form, prctl(PR_SET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN), which is kept across fork and execve, so no running
systemd is needed. GStreamer is the suspect: ORC compiles its inner loops to machine code at run time.

  mdwe.py exec -- CMD ARGS...     run CMD with MDWE applied
  mdwe.py check                   show that MDWE is in force in a child (an RWX mmap fails there, works here)
  mdwe.py preview-gl              glimagesink on $DISPLAY with and without MDWE (software GL needs W+X memory)
  mdwe.py measure --binary B [--rounds 3] [--seconds 10]
      per round, with and without MDWE (alternating): start `B run` on the built-in config (test sources,
      1280x720@30, x264) in a temporary folder, record for --seconds, read the daemon's CPU over the recording
      from /proc/PID/stat, check the clip decodes (ffmpeg -v error) and its duration (ffprobe); then one strace
      run each way, counting executable mappings, to see whether ORC generated code or fell back.
"""
import argparse
import ctypes
import json
import mmap
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

PR_SET_MDWE = 65
PR_GET_MDWE = 66
PR_MDWE_REFUSE_EXEC_GAIN = 1
HERE = os.path.abspath(__file__)
PIPELINES = os.path.join(os.path.dirname(HERE), "..", "..", "pipelines")  # for a binary outside the tree


def apply_mdwe() -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN, 0, 0, 0) != 0:
        err = ctypes.get_errno()
        sys.exit(f"mdwe: prctl(PR_SET_MDWE) failed: {os.strerror(err)} (needs Linux 6.3 or later)")
    if libc.prctl(PR_GET_MDWE, 0, 0, 0, 0) & PR_MDWE_REFUSE_EXEC_GAIN == 0:
        sys.exit("mdwe: PR_GET_MDWE does not report the flag")


def rwx_mmap_works() -> bool:
    try:
        m = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
        m.close()
        return True
    except PermissionError:
        return False


def cmd_exec(argv: list[str]) -> None:
    if argv and argv[0] == "--":
        argv = argv[1:]
    if not argv:
        sys.exit("mdwe: exec needs a command")
    apply_mdwe()
    os.execvp(argv[0], argv)


def cmd_check() -> int:
    probe = [sys.executable, "-c", "import mmap,sys\n"
             "try:\n mmap.mmap(-1,4096,prot=7); print('rwx mmap works')\n"
             "except PermissionError: print('rwx mmap refused'); sys.exit(3)"]
    plain = subprocess.run(probe, capture_output=True, text=True)
    guarded = subprocess.run([sys.executable, HERE, "exec", "--", *probe], capture_output=True, text=True)
    print(f"without MDWE: {plain.stdout.strip()}; with MDWE (after execve): {guarded.stdout.strip()}")
    return 0 if plain.returncode == 0 and guarded.returncode == 3 else 1


class Run:
    """One daemon in its own temporary folder, optionally under MDWE and/or strace."""

    def __init__(self, binary: str, mdwe: bool, strace_log: str | None = None, env: dict | None = None):
        self.dir = tempfile.mkdtemp(prefix="mdwe-")
        self.socket = os.path.join(self.dir, "ctl.sock")
        self.binary = binary = os.path.abspath(binary)
        cmd = [binary, "run", "--data-dir", os.path.join(self.dir, "data"), "--socket", self.socket]
        if mdwe:
            cmd = [sys.executable, HERE, "exec", "--", *cmd]
        if strace_log:
            # -f: every thread; mmap/mprotect with PROT_EXEC are where code is made executable.
            cmd = ["strace", "-f", "-qq", "-e", "trace=mmap,mprotect,pkey_mprotect,memfd_create",
                   "-o", strace_log, *cmd]
        self.log = open(os.path.join(self.dir, "daemon.log"), "wb")
        self.proc = subprocess.Popen(cmd, cwd=self.dir, stdout=self.log, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL,
                                     env={"APPLIANCE_PIPELINES": os.path.abspath(PIPELINES), **os.environ, **(env or {})})

    def daemon_pid(self) -> int:
        """The appliance process itself (the launcher execs into it; strace forks it as its child)."""
        if not self.proc.args[0] == "strace":
            return self.proc.pid
        out = subprocess.run(["pgrep", "-P", str(self.proc.pid)], capture_output=True, text=True).stdout.split()
        return int(out[0])

    def ctl(self, *args: str) -> dict:
        r = subprocess.run([self.binary, "ctl", "--socket", self.socket, "--json", *args],
                           capture_output=True, text=True, timeout=120)
        if r.returncode != 0:
            raise RuntimeError(f"ctl {' '.join(args)}: {r.stderr.strip() or r.stdout.strip()}\n{self.tail()}")
        return json.loads(r.stdout)

    def wait_ready(self, timeout: float = 90) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"daemon exited ({self.proc.returncode}):\n{self.tail()}")
            if os.path.exists(self.socket):
                try:
                    if self.ctl("status").get("ready"):
                        return
                except (RuntimeError, subprocess.TimeoutExpired):
                    pass
            time.sleep(0.2)
        raise RuntimeError(f"not ready after {timeout} s:\n{self.tail()}")

    def cpu_seconds(self) -> float:
        with open(f"/proc/{self.daemon_pid()}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime

    def tail(self, n: int = 20) -> str:
        self.log.flush()
        with open(os.path.join(self.dir, "daemon.log"), errors="replace") as f:
            return "".join(f.readlines()[-n:])

    def stop(self) -> None:
        if self.proc.poll() is None:
            # The daemon itself: strace, signalled, would detach and leave it running.
            try:
                os.kill(self.daemon_pid(), signal.SIGTERM)
            except (IndexError, ProcessLookupError):
                self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)


def check_clip(path: str) -> tuple[bool, float, str]:
    """(decodes without errors, duration in seconds, codecs)."""
    dec = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-f", "null", "-"], capture_output=True, text=True)
    probe = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "format=duration:stream=codec_name",
                            "-of", "json", path], capture_output=True, text=True)
    info = json.loads(probe.stdout or "{}")
    codecs = "+".join(s.get("codec_name", "?") for s in info.get("streams", []))
    return dec.returncode == 0 and not dec.stderr.strip(), float(info.get("format", {}).get("duration", 0)), codecs


def one_round(binary: str, mdwe: bool, seconds: float) -> dict:
    run = Run(binary, mdwe)
    try:
        run.wait_ready()
        time.sleep(2)  # let start-up settle
        run.ctl("record", "start")
        t0, c0 = time.monotonic(), run.cpu_seconds()
        time.sleep(seconds)
        c1, t1 = run.cpu_seconds(), time.monotonic()
        stopped = run.ctl("record", "stop")
        ok, duration, codecs = check_clip(stopped["path"])
        alive = run.proc.poll() is None
        return {"mdwe": mdwe, "cpu_pct": 100 * (c1 - c0) / (t1 - t0), "decodes": ok, "duration_s": duration,
                "codecs": codecs, "alive": alive}
    finally:
        run.stop()


def strace_round(binary: str, mdwe: bool) -> dict:
    """Counts, over start-up and a 3 s recording: anonymous RWX mmaps and their results, PROT_EXEC mprotects,
    and shared executable file mappings (ORC's fallback: one file mapped twice, writable and executable)."""
    log = tempfile.mktemp(prefix="mdwe-strace-")
    run = Run(binary, mdwe, strace_log=log, env={"ORC_DEBUG": "3"})
    try:
        run.wait_ready(timeout=180)
        run.ctl("record", "start")
        time.sleep(3)
        stopped = run.ctl("record", "stop")
        ok, duration, _ = check_clip(stopped["path"])
        # ORC_DEBUG=3: ORC's own errors and warnings (a failed code allocation says so) besides its info lines.
        orc_problems = [l for l in run.tail(2000).splitlines() if "ORC: ERROR" in l or "ORC: WARNING" in l]
        orc_info = sum("ORC: INFO" in l for l in run.tail(2000).splitlines())
    finally:
        run.stop()
    with open(log) as f:
        lines = f.read().splitlines()
    os.unlink(log)
    rwx = [l for l in lines if "mmap(" in l and "PROT_WRITE|PROT_EXEC" in l]
    return {
        "mdwe": mdwe,
        "rwx_mmap": len(rwx),
        "rwx_mmap_refused": sum("EACCES" in l or "EPERM" in l for l in rwx),
        "mprotect_exec": sum("mprotect(" in l and "PROT_EXEC" in l for l in lines),
        "mprotect_exec_refused": sum("mprotect(" in l and "PROT_EXEC" in l and ("EACCES" in l or "EPERM" in l)
                                     for l in lines),
        "shared_exec_maps": sum("mmap(" in l and "PROT_READ|PROT_EXEC" in l and "MAP_SHARED" in l for l in lines),
        "clip_decodes": ok, "clip_s": duration, "orc_info_lines": orc_info, "orc_errors_warnings": orc_problems[:5],
    }


def cmd_preview_gl() -> int:
    """glimagesink (60 frames) with and without MDWE on $DISPLAY (e.g. Xvfb): Mesa's software renderer, llvmpipe,
    compiles shaders to machine code in memory that is writable and executable."""
    if not os.environ.get("DISPLAY"):
        sys.exit("mdwe: preview-gl needs DISPLAY (e.g. Xvfb :77 & DISPLAY=:77)")
    pipeline = ["gst-launch-1.0", "-q", "videotestsrc", "num-buffers=60", "!", "glimagesink"]
    results = {}
    for mdwe in (False, True):
        cmd = [sys.executable, HERE, "exec", "--", *pipeline] if mdwe else pipeline
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
            results[mdwe] = f"exit {r.returncode}" + (" (SIGSEGV)" if "SIGSEGV" in r.stdout + r.stderr else "")
        except subprocess.TimeoutExpired:  # gst-launch catches SIGSEGV and spins, waiting for a debugger
            results[mdwe] = "hung after a crash" if mdwe else "timed out"
        print(f"glimagesink mdwe={'on ' if mdwe else 'off'}: {results[mdwe]}", flush=True)
    return 0


def cmd_measure(args) -> int:
    if cmd_check() != 0:
        print("MDWE is not in force in children; nothing to measure", file=sys.stderr)
        return 1
    rounds = []
    for i in range(args.rounds):
        for mdwe in (False, True):
            r = one_round(args.binary, mdwe, args.seconds)
            rounds.append(r)
            print(f"round {i + 1} mdwe={'on ' if mdwe else 'off'}: CPU {r['cpu_pct']:.1f}% of one core, clip "
                  f"{r['duration_s']:.2f} s {r['codecs']}, decodes={r['decodes']}, daemon alive={r['alive']}",
                  flush=True)
    for mdwe in (False, True):
        cpu = [r["cpu_pct"] for r in rounds if r["mdwe"] == mdwe]
        print(f"mdwe={'on ' if mdwe else 'off'}: CPU mean {statistics.mean(cpu):.1f}% "
              f"(min {min(cpu):.1f}, max {max(cpu):.1f}) over {len(cpu)} rounds of {args.seconds:g} s")
    if shutil.which("strace"):
        for mdwe in (False, True):
            print(f"strace mdwe={'on ' if mdwe else 'off'}: {json.dumps(strace_round(args.binary, mdwe))}",
                  flush=True)
    bad = [r for r in rounds if not (r["decodes"] and r["alive"] and abs(r["duration_s"] - args.seconds) < 1.5)]
    return 1 if bad else 0


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "exec":
        cmd_exec(sys.argv[2:])
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("check")
    sub.add_parser("preview-gl")
    m = sub.add_parser("measure")
    m.add_argument("--binary", required=True)
    m.add_argument("--rounds", type=int, default=3)
    m.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    if args.command == "check":
        return cmd_check()
    if args.command == "preview-gl":
        return cmd_preview_gl()
    return cmd_measure(args)


if __name__ == "__main__":
    sys.exit(main())
