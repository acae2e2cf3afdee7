#!/usr/bin/env python3
"""Talk benchmark for `make bench` (issue 49): mouth-to-speaker latency, and what a talk session costs the device.

The daemon records 1280x720@30 from test sources (x264 pinned, as every bench) with `[speaker] pipeline` ending in
`udpsink host=127.0.0.1 port=P sync=true`: each buffer leaves when the speaker would play it (the talk pipeline's
latency included), and arrives here on a socket whose arrival times are the speaker's. The browser is headless
chromium on the dashboard's live page, its fake microphone playing a file of 100 ms 1 kHz beeps once a second.

  latency    the live page's own Talk button held for `--hold` seconds. The page's getUserMedia is wrapped before
             the press so that the very track it sends also feeds an AnalyserNode; a beep's onset in the browser is
             the first 5 ms poll whose RMS is above -30 dBFS after a quiet stretch (performance.timeOrigin + now(),
             the machine's clock). Its onset at the speaker is the first datagram above -30 dBFS after a quiet
             stretch (time.time() at arrival). Latency = speaker − browser per beep; the first 2 skipped.
  cpu        the same daemon and page, alternating windows: the live view with its sound on alone, then with Talk
             held (the microphone sent, received, decoded and played). Every thread's run time of the daemon
             (/proc/PID/task/*/schedstat); the browser is not counted.

Anchor: go2rtc's two-way audio (no figure published for its latency or CPU: this is the appliance's own baseline).

    python3 Tests/Benchmarks/bench_talk.py --binary .build-release/release/appliance --out docs/BENCHMARKS.md
"""
import argparse
import array
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_features import base_config, write_section  # noqa: E402
from bench_service import run_ns  # noqa: E402
from bench_streaming import open_webrtc  # noqa: E402
from harness import Daemon, DaemonError  # noqa: E402

START, END = "<!-- bench_talk:start -->", "<!-- bench_talk:end -->"
LATENCY_TARGET_MS = 300.0
CPU_TARGET = 1.25  # talk on top of a live view with sound: a decode and a small pipeline more
LOUD = 1000  # RMS of 16-bit samples: about -30 dBFS

# Wraps getUserMedia so that the track the page sends also feeds an analyser here; onsets in window.micOnsets.
WATCH_MICROPHONE_JS = """
window.micOnsets = [];
const original = navigator.mediaDevices.getUserMedia.bind(navigator.mediaDevices);
navigator.mediaDevices.getUserMedia = async (constraints) => {
  const stream = await original(constraints);
  const context = new AudioContext();
  const analyser = context.createAnalyser();
  analyser.fftSize = 256;
  context.createMediaStreamSource(stream).connect(analyser);
  const data = new Float32Array(analyser.fftSize);
  let quiet = 0;
  setInterval(() => {
    analyser.getFloatTimeDomainData(data);
    let sum = 0;
    for (const x of data) sum += x * x;
    const rms = Math.sqrt(sum / data.length);
    if (rms > 0.03 && quiet >= 40) window.micOnsets.push(performance.timeOrigin + performance.now());
    quiet = rms < 0.003 ? quiet + 1 : 0;
  }, 5);
  return stream;
};
"""


def beeps_file(path, seconds=60):
    """100 ms of 1 kHz once a second, silence between (48 kHz mono WAV), for the browser's fake microphone."""
    rate, samples = 48000, array.array("h")
    import math
    for i in range(rate * seconds):
        t = i / rate
        samples.append(int(16000 * math.sin(2 * math.pi * 1000 * t)) if (t % 1.0) < 0.1 else 0)
    with open(path, "wb") as f:
        data = samples.tobytes()
        f.write(b"RIFF" + (36 + len(data)).to_bytes(4, "little") + b"WAVEfmt " + (16).to_bytes(4, "little")
                + (1).to_bytes(2, "little") + (1).to_bytes(2, "little") + rate.to_bytes(4, "little")
                + (rate * 2).to_bytes(4, "little") + (2).to_bytes(2, "little") + (16).to_bytes(2, "little")
                + b"data" + len(data).to_bytes(4, "little") + data)


class SpeakerListener:
    """The speaker's UDP output: the arrival time of each loud datagram after a quiet stretch."""

    def __init__(self):
        self.socket = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.socket.bind(("127.0.0.1", 0))
        self.socket.settimeout(0.2)
        self.port = self.socket.getsockname()[1]
        self.onsets, self.datagrams, self.quiet_s, self.running = [], 0, 0.0, True
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        while self.running:
            try:
                data = self.socket.recv(65536)
            except socket.timeout:
                continue
            now = time.time()
            samples = array.array("h", data[: len(data) // 2 * 2])
            rms = (sum(x * x for x in samples) / max(1, len(samples))) ** 0.5
            self.datagrams += 1
            if rms > LOUD and self.quiet_s >= 0.2:
                self.onsets.append(now)
            self.quiet_s = self.quiet_s + len(samples) / 48000 if rms < LOUD / 10 else 0.0

    def stop(self):
        self.running = False
        self.thread.join(timeout=2)
        self.socket.close()


def browser(microphone):
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service
    options = Options()
    options.binary_location = "/usr/bin/chromium"
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--mute-audio",
                     "--autoplay-policy=no-user-gesture-required", "--window-size=1280,900",
                     "--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream",
                     f"--use-file-for-fake-audio-capture={microphone}"]:
        options.add_argument(argument)
    options.page_load_strategy = "eager"
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.set_script_timeout(60)
    return driver


def hold_talk(driver):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    talk = driver.find_element(By.ID, "talk")
    deadline = time.monotonic() + 30
    while not talk.is_displayed():
        if time.monotonic() > deadline:
            raise DaemonError("the Talk button did not show")
        time.sleep(0.2)
    ActionChains(driver).click_and_hold(talk).perform()
    while driver.execute_script("return document.body.dataset.talk") != "on":
        if time.monotonic() > deadline:
            raise DaemonError("talking did not start: " + driver.find_element(By.ID, "message").text)
        time.sleep(0.05)
    return talk


def release_talk(driver, talk):
    from selenium.webdriver.common.action_chains import ActionChains
    ActionChains(driver).release(talk).perform()


def run(binary, work, hold, window, rounds):
    listener = SpeakerListener()
    microphone = os.path.join(work, "beeps.wav")
    beeps_file(microphone)
    directory = os.path.join(work, "talk")
    shutil.rmtree(directory, ignore_errors=True)
    speaker = (f'[speaker]\npipeline = "audio/x-raw,format=S16LE,rate=48000,channels=1 ! udpsink host=127.0.0.1 '
               f'port={listener.port} sync=true"\n[[camera]]\nname = "main"\nsource = "test"\n')
    daemon = Daemon(binary, directory, base_config(os.path.join(directory, "data"), speaker))
    driver = None
    try:
        status = daemon.wait_ready(120, until=lambda s: s["ready"] and (s.get("web") or {}).get("url"))
        driver = browser(microphone)
        driver.get(status["web"]["url"] + "/live")
        driver.execute_script(WATCH_MICROPHONE_JS)
        open_webrtc(driver, status["web"]["url"], sound=True)
        driver.execute_script(WATCH_MICROPHONE_JS)  # open_webrtc loaded the page again
        daemon.call("record.start")
        talk = hold_talk(driver)
        time.sleep(hold)
        release_talk(driver, talk)
        time.sleep(1)
        sent = driver.execute_script("return window.micOnsets")
        heard = list(listener.onsets)
        latencies = []
        for onset in sent:
            later = [h for h in heard if 0 <= h - onset / 1000 < 0.9]
            if later:
                latencies.append((later[0] - onset / 1000) * 1000)
        latencies = latencies[2:]
        if len(latencies) < 5:
            raise DaemonError(f"only {len(latencies)} beeps matched ({len(sent)} sent, {len(heard)} heard)")
        cpu = {"view": [], "talk": []}
        for _ in range(rounds):
            for mode in ("view", "talk"):
                talk = hold_talk(driver) if mode == "talk" else None
                time.sleep(1)
                c0, t0 = run_ns(daemon.proc.pid), time.monotonic()
                time.sleep(window)
                cpu[mode].append((run_ns(daemon.proc.pid) - c0) / (time.monotonic() - t0))
                if talk:
                    release_talk(driver, talk)
                    time.sleep(1)
        daemon.call("record.stop")
        return latencies, cpu
    finally:
        if driver:
            driver.quit()
        daemon.stop()
        listener.stop()


def report(command, machine, latencies, cpu, failure):
    lines = [START, "## Talk: mouth-to-speaker latency and what a talk session costs", "",
             f"Reproduce: `{command}` ({machine}). The daemon records 1280x720@30 (x264) from test sources; the "
             "dashboard's live page in headless chromium holds Talk with a fake microphone of 100 ms 1 kHz beeps; the "
             "speaker is a `udpsink sync=true` read here (see the script's header for how onsets are taken).", ""]
    if failure:
        lines += [f"Failed: {failure}", END]
        return "\n".join(lines)
    ordered = sorted(latencies)
    p95 = ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]
    verdict = "met" if p95 <= LATENCY_TARGET_MS else "NOT met"
    ratios = [t / v for t, v in zip(cpu["talk"], cpu["view"])]
    median = statistics.median(ratios)
    lines += ["| measure | value | target |", "|---|---|---|",
              f"| browser microphone → speaker, {len(latencies)} beeps | median {statistics.median(latencies):.0f} ms, p95 {p95:.0f} ms "
              f"(min {min(latencies):.0f}, max {max(latencies):.0f}) | p95 ≤ {LATENCY_TARGET_MS:.0f} ms ({verdict}) |",
              f"| daemon CPU, live view with sound + Talk held / live view with sound (median of {len(ratios)}) | {median:.3f} "
              f"({', '.join(f'{r:.3f}' for r in ratios)}) | ≤ {CPU_TARGET:.2f} ({'met' if median <= CPU_TARGET else 'NOT met'}) |",
              f"| daemon CPU, live view with sound | {statistics.median(cpu['view']) * 100:.1f} % of a core | |",
              f"| daemon CPU, and Talk held | {statistics.median(cpu['talk']) * 100:.1f} % of a core | |",
              "", "What talk adds: webrtcbin's receive path (SRTP, the jitter buffer), Opus decoding and the talk "
              "pipeline to the sink; the recording and the live view are untouched. The latency includes the "
              "browser's capture and Opus encoding, the loopback network, webrtcbin's jitter buffer (latency 0) and "
              "the talk pipeline's 60 ms; an ALSA device adds its own buffer (alsasink's default 200 ms, less with "
              "latency-time). go2rtc publishes no figure for its two-way audio to compare with.", END]
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--out", default="docs/BENCHMARKS.md")
    ap.add_argument("--hold", type=float, default=15.0)
    ap.add_argument("--window", type=float, default=10.0)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    command = f"python3 Tests/Benchmarks/bench_talk.py --binary {args.binary} --out {args.out}"
    latencies, cpu, failure = [], {}, None
    with tempfile.TemporaryDirectory(prefix="bench-talk-") as work:
        try:
            latencies, cpu = run(os.path.abspath(args.binary), work, args.hold, args.window, args.rounds)
            print("latency ms", [round(x) for x in latencies], "cpu", cpu, flush=True)
        except (DaemonError, OSError, subprocess.SubprocessError) as e:
            failure = str(e)
    machine = f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at the end"
    write_section(args.out, report(command, machine, latencies, cpu, failure), START, END)
    return 1 if failure else 0


if __name__ == "__main__":
    sys.exit(main())
