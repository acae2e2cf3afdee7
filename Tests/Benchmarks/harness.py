"""The one way the benchmarks run an appliance daemon: its own folder, config, socket and log; requests over the
socket (`call`) or through the CLI (`ctl`); readiness by polling `status`; stopped by its own PID (never by name,
and never through a wrapper such as strace, which would detach on SIGTERM and leave the daemon running).

Each bench adds only what it measures around it (an X server, a notify socket, a token), by subclassing `Daemon`.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time


def pinning_x264(config: str) -> str:
    """The config with `[video] encoder = "x264"` unless it names an encoder: the benchmarks compare the daemon with
    gst-launch-1.0 running x264enc, so `auto` must not pick another encoder (its own costs are measured apart)."""
    if "encoder =" in config:
        return config
    if "[video]\n" in config:
        return config.replace("[video]\n", '[video]\nencoder = "x264"\n', 1)
    return config + '\n[video]\nencoder = "x264"\n'


class DaemonError(RuntimeError):
    """Something broke: the benchmark cannot produce meaningful numbers."""


def call(socket_path: str, command: str, args: dict | None = None) -> dict:
    """One request over the control socket, without the CLI's start-up time; the answer's `result`."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.connect(socket_path)
        s.sendall((json.dumps({"command": command, "args": args or {}}) + "\n").encode())
        data = b""
        while not data.endswith(b"\n"):
            chunk = s.recv(1 << 20)
            if not chunk:
                raise DaemonError(f"{command}: the daemon closed the socket without an answer")
            data += chunk
    response = json.loads(data)
    if not response["ok"]:
        raise DaemonError(f"{command}: {response['error']}")
    return response["result"]


def tail(path: str, lines: int = 30) -> str:
    try:
        with open(path, errors="replace") as f:
            return "".join(f.readlines()[-lines:])
    except OSError:
        return "(no log)"


class Daemon:
    """`appliance run` in `directory`. `config`: the TOML text to run on, or None for the embedded default with
    `--data-dir directory/data`. `wrapper`: a command the daemon runs under (strace…); `pid` is then the daemon's
    own PID once it is ready. `env`: the environment (default: this process's)."""

    def __init__(self, binary: str, directory: str, config: str | None = None, *, env: dict | None = None,
                 wrapper: tuple | list = ()):
        # Absolute: the daemon runs in `directory`, and `make bench` passes the binary relative to the checkout.
        binary = os.path.abspath(binary)
        self.binary, self.dir, self.wrapper = binary, directory, tuple(wrapper)
        os.makedirs(directory, exist_ok=True)
        self.socket = os.path.join(directory, "ctl.sock")
        self.log_path = os.path.join(directory, "daemon.log")
        if config is None:
            self.data_dir = os.path.join(directory, "data")
            os.makedirs(self.data_dir, exist_ok=True)
            config = f'data_dir = "{self.data_dir}"\n'
        self.config = os.path.join(directory, "appliance.toml")
        with open(self.config, "w") as f:
            f.write(pinning_x264(config))
        source = ["--config", self.config]
        self.log = open(self.log_path, "w")
        self.t_launch = time.monotonic()
        self.proc = subprocess.Popen(
            [*self.wrapper, binary, "run", *source, "--socket", self.socket],
            stdin=subprocess.DEVNULL, stdout=self.log, stderr=subprocess.STDOUT, env=env, cwd=directory,
            start_new_session=True,  # a Ctrl-C on the terminal reaches only the bench, which stops its daemons
        )
        self.pid = self.proc.pid

    def call(self, command: str, args: dict | None = None) -> dict:
        return call(self.socket, command, args)

    def ctl_timed(self, *args: str, timeout: float = 120.0) -> tuple[dict, float]:
        """`appliance ctl --json ARGS`: the parsed answer and the command's wall time in ms."""
        t0 = time.monotonic()
        try:
            r = subprocess.run([self.binary, "ctl", "--socket", self.socket, "--json", *args],
                               capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            raise DaemonError(f"`ctl {' '.join(args)}` did not answer within {timeout:.0f} s")
        wall_ms = (time.monotonic() - t0) * 1000.0
        if r.returncode != 0:
            raise DaemonError(f"`ctl {' '.join(args)}` failed ({r.returncode}): {r.stderr.strip() or r.stdout.strip()}")
        try:
            return json.loads(r.stdout), wall_ms
        except json.JSONDecodeError:
            raise DaemonError(f"`ctl {' '.join(args)}` did not answer JSON: {r.stdout!r}")

    def ctl(self, *args: str, timeout: float = 120.0) -> dict:
        return self.ctl_timed(*args, timeout=timeout)[0]

    def wait_ready(self, timeout: float = 60.0, until=lambda status: status.get("ready")) -> dict:
        """Polls `status` until `until(status)` holds (default: the daemon says it is ready); returns that status.
        Then `ready_s` is the time from launch. Under a wrapper, `pid` becomes the daemon's own."""
        deadline = time.monotonic() + timeout
        last_error = ""
        while True:
            if self.proc.poll() is not None:
                raise DaemonError(f"daemon exited with status {self.proc.returncode} during start-up:\n{tail(self.log_path)}")
            try:
                status = self.call("status")
                if until(status):
                    self.ready_s = time.monotonic() - self.t_launch
                    if self.wrapper and self.pid == self.proc.pid:
                        with open(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children") as f:
                            self.pid = int(f.read().split()[0])
                    return status
            except (OSError, ValueError, KeyError, DaemonError) as e:
                last_error = str(e)
            if time.monotonic() > deadline:
                raise DaemonError(f"daemon not ready within {timeout:.0f} s ({last_error}):\n{tail(self.log_path)}")
            time.sleep(0.05)

    def alive(self) -> None:
        if self.proc.poll() is not None:
            raise DaemonError(f"daemon died (status {self.proc.returncode}):\n{tail(self.log_path)}")

    def diagnose(self) -> str:
        state = "running" if self.proc.poll() is None else f"exited with status {self.proc.returncode}"
        sock = "present" if os.path.exists(self.socket) else "missing"
        return f"daemon pid {self.pid} {state}, socket {sock}; last log lines:\n{tail(self.log_path)}"

    def stop(self, timeout: float = 60.0) -> int | None:
        """SIGTERM to the daemon's own PID; SIGKILL if it has not exited after `timeout`. Its exit status."""
        if self.proc.poll() is None:
            try:
                os.kill(self.pid, signal.SIGTERM)
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                os.kill(self.pid, signal.SIGKILL)
                self.proc.kill()
                self.proc.wait()
            except ProcessLookupError:
                self.proc.wait()
        if not self.log.closed:
            self.log.close()
        return self.proc.returncode
