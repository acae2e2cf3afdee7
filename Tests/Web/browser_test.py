#!/usr/bin/env python3
"""Real-browser end-to-end test of the web dashboard.

Starts its own daemon (test camera and audio sources, web on 127.0.0.1 with a random free port and a password),
drives Debian's headless chromium through chromedriver with selenium 4, and checks what a user sees: the login
gate, the live picture, recording from the live page, the recordings grid, playing and seeking a clip, rename,
lock/delete, and share links (which must work in a fresh browser that has no login, and stop working when revoked).

    python3 Tests/Web/browser_test.py --binary .build/debug/appliance --out DIR

Prints one line per check (PASS/FAIL), saves one PNG screenshot per page into DIR, exits 0 only if every check
passed. The daemon is always stopped by its PID (SIGTERM, then SIGKILL).
"""

import argparse
import base64
import hashlib
import http.client
import datetime
import json
import os
import re
import secrets
import shutil
import signal
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException, TimeoutException, WebDriverException
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
# Generous: the machine that runs this may be slow and shared.
WAIT = 45


class CheckFailed(Exception):
    pass


# Audio RTP packets the live page's WebRTC connection has received so far (-1: no connection).
AUDIO_PACKETS_JS = """
const done = arguments[arguments.length - 1];
const pc = window.livePeer;
if (!pc) { done(-1); return; }
pc.getStats().then((stats) => { let n = 0; stats.forEach((r) => { if (r.type === "inbound-rtp" && r.kind === "audio") n += r.packetsReceived; }); done(n); });
"""


def expect(condition, message):
    if not condition:
        raise CheckFailed(message)


# ---------------------------------------------------------------------------------------------------------------
# The daemon


class Daemon:
    def __init__(self, binary, directory, encoder="x264", tls=False, channels=False):
        self.binary = os.path.abspath(binary)
        self.encoder = encoder
        self.tls = tls
        self.directory = directory
        self.data_dir = os.path.join(directory, "data")
        self.socket = os.path.join(self.data_dir, "ctl.sock")
        self.config = os.path.join(directory, "appliance.toml")
        self.token_file = os.path.join(directory, "web.token")
        self.log_path = os.path.join(directory, "daemon.log")
        self.password = "pw-" + secrets.token_hex(10)
        self.process = None
        self.url = None
        self.certificate = os.path.join(self.data_dir, "tls", "device.crt")  # made at its first start (tls)
        self.channels = channels  # two channels side by side, recording loop segments from the start
        # The speaker: raw 48 kHz mono appended to a file the Talk check reads back.
        self.speaker_output = os.path.join(directory, "speaker.raw")

    def write_config(self):
        with open(self.token_file, "w") as f:
            f.write(self.password + "\n")
        os.chmod(self.token_file, 0o600)
        with open(self.config, "w") as f:
            f.write(f'''data_dir = "{self.data_dir}"
[audio]
source = "test"
[preview]
sink = "none"
[video]
encoder = "{self.encoder}"
[web]
listen = "127.0.0.1:0"
token_file = "{self.token_file}"
webrtc_viewers = 1
tls = "{'on' if self.tls else 'auto'}"
[motion]
enabled = true
[sound]
enabled = true
[speaker]
pipeline = "audio/x-raw,format=S16LE,rate=48000,channels=1 ! filesink location={self.speaker_output} append=true"
[[camera]]
name = "main"
source = "test"
pattern = "smpte"
[[camera]]
name = "second"
source = "test"
pattern = "ball"
''' + (self.CHANNELS if self.channels else ""))

    # --channels: the front channel records the main camera, the rear one the second at 320x180, both in 2 s loop
    # segments from the start.
    CHANNELS = '''[recording]
autostart = true
segment_s = 2.0
[[channel]]
name = "front"
cameras = ["main"]
[[channel]]
name = "rear"
cameras = ["second"]
width = 320
height = 180
'''

    # A day of loop recording in the past, for the timeline's player: yesterday 12:00–12:05 local time, 30 files of
    # 10 s (hard links to one real MP4 with a running clock) and 3 activities, written before the daemon starts.
    SEEDED_ROWS, SEEDED_SEGMENT_S = 30, 10

    def seed_loop_day(self):
        media = os.path.join(self.directory, "segment.mp4")
        subprocess.run(["gst-launch-1.0", "-q", "videotestsrc", "num-buffers=300", "pattern=ball", "!",
                        "video/x-raw,width=320,height=180,framerate=30/1", "!", "timeoverlay", "!",
                        "x264enc", "key-int-max=30", "bframes=0", "tune=zerolatency", "speed-preset=veryfast", "!", "h264parse", "!",
                        "mp4mux", "name=mux", "!", "filesink", f"location={media}",
                        "audiotestsrc", "num-buffers=469", "samplesperbuffer=1024", "!", "audio/x-raw,rate=48000,channels=1", "!",
                        "avenc_aac", "!", "aacparse", "!", "mux."], check=True, timeout=120)
        yesterday = time.localtime(time.time() - 86400)
        self.seeded_day = time.strftime("%Y-%m-%d", yesterday)
        self.seeded_start = time.mktime((yesterday.tm_year, yesterday.tm_mon, yesterday.tm_mday, 12, 0, 0, 0, 0, -1))
        end = self.seeded_start + self.SEEDED_ROWS * self.SEEDED_SEGMENT_S
        subprocess.run([self.binary, "dev", "seed", "--data-dir", self.data_dir, "--rows", str(self.SEEDED_ROWS),
                        "--segment-s", str(self.SEEDED_SEGMENT_S), "--events", "3", "--media", media,
                        "--end", time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(end))], check=True, timeout=120, stdout=subprocess.DEVNULL)

    def start(self, timeout=90):
        self.write_config()
        if not self.channels:
            self.seed_loop_day()
        log = open(self.log_path, "ab")
        self.process = subprocess.Popen([self.binary, "run", "--config", self.config], stdout=log, stderr=log,
                                        stdin=subprocess.DEVNULL, start_new_session=True)
        log.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"daemon exited with status {self.process.returncode}:\n{self.log_tail()}")
            status = self.status()
            url = ((status or {}).get("web") or {}).get("url")
            if url:
                self.url = url.rstrip("/")
                return
            time.sleep(0.3)
        raise RuntimeError(f"daemon did not serve the dashboard within {timeout} s:\n{self.log_tail()}")

    def status(self):
        try:
            out = subprocess.run([self.binary, "ctl", "--socket", self.socket, "--json", "status"], capture_output=True,
                                 timeout=30, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            return None
        if out.returncode != 0:
            return None
        try:
            value = json.loads(out.stdout)
        except ValueError:
            return None
        # Accept either the bare result or the socket's {"ok":…, "result":…} envelope.
        if isinstance(value, dict) and isinstance(value.get("result"), dict):
            return value["result"]
        return value

    def stop(self):
        if self.process is None:
            return None
        pid = self.process.pid
        if self.process.poll() is None:
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                self.process.wait(timeout=30)
        return self.process.returncode

    def log_tail(self, lines=40):
        try:
            with open(self.log_path, errors="replace") as f:
                return "".join(f.readlines()[-lines:])
        except OSError:
            return ""


# ---------------------------------------------------------------------------------------------------------------
# Raw HTTP (no browser, no redirects followed)


class HTTP:
    """`cafile`: the certificate an https:// base is checked against (the device's own)."""

    def __init__(self, base, cafile=None):
        parsed = urllib.parse.urlsplit(base)
        self.host, self.port = parsed.hostname, parsed.port
        self.context = ssl.create_default_context(cafile=cafile) if parsed.scheme == "https" else None

    def request(self, method, path, headers=None, body=None, timeout=60):
        if self.context:
            connection = http.client.HTTPSConnection(self.host, self.port, timeout=timeout, context=self.context)
        else:
            connection = http.client.HTTPConnection(self.host, self.port, timeout=timeout)
        try:
            data = None
            headers = dict(headers or {})
            if body is not None:
                data = json.dumps(body).encode()
                headers["Content-Type"] = "application/json"
            connection.request(method, path, body=data, headers=headers)
            response = connection.getresponse()
            payload = response.read()
            return response.status, dict((k.lower(), v) for k, v in response.getheaders()), payload
        finally:
            connection.close()


class API:
    """The JSON API with the bearer token."""

    def __init__(self, http, password):
        self.http = http
        self.auth = {"Authorization": "Bearer " + password}

    def call(self, method, path, body=None):
        status, _, payload = self.http.request(method, path, headers=self.auth, body=body)
        try:
            value = json.loads(payload) if payload else None
        except ValueError:
            value = payload.decode(errors="replace")
        return status, value

    def ok(self, method, path, body=None):
        status, value = self.call(method, path, body)
        expect(status == 200, f"{method} {path} answered {status}: {value}")
        return value

    def recording_ids(self):
        page = self.ok("GET", "/api/recordings?page=1&per_page=50")
        return [item["id"] for item in page["items"]]

    def status(self):
        return self.ok("GET", "/api/status")


# ---------------------------------------------------------------------------------------------------------------
# The browser


def spki_pin(certificate):
    """The base64 SHA-256 of a certificate's public key: what chromium's --ignore-certificate-errors-spki-list takes."""
    key = subprocess.run(["openssl", "x509", "-in", certificate, "-noout", "-pubkey"], check=True, capture_output=True).stdout
    der = subprocess.run(["openssl", "pkey", "-pubin", "-outform", "der"], input=key, check=True, capture_output=True).stdout
    return base64.b64encode(hashlib.sha256(der).digest()).decode()


def make_browser(profile_dir, pinned=None, microphone=None, host_rules=None):
    """`pinned`: a certificate the browser accepts by its public key (as a user who compared the fingerprint and
    trusted it), for a device serving its own certificate over HTTPS. `microphone`: a WAV file the browser's fake
    microphone plays (its permission granted as a user would)."""
    options = Options()
    options.binary_location = CHROMIUM
    arguments = ["--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,900",
                 "--autoplay-policy=no-user-gesture-required", "--disable-dev-shm-usage", "--no-first-run",
                 "--no-default-browser-check", "--mute-audio", f"--user-data-dir={profile_dir}"]
    if pinned:
        arguments.append(f"--ignore-certificate-errors-spki-list={spki_pin(pinned)}")
    if host_rules:
        arguments.append(f"--host-resolver-rules={host_rules}")
    if microphone:
        arguments += ["--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream",
                      f"--use-file-for-fake-audio-capture={microphone}"]
    for argument in arguments:
        options.add_argument(argument)
    # The live page's MJPEG <img> never finishes loading: wait for DOMContentLoaded only, then wait explicitly.
    options.page_load_strategy = "eager"
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(90)
    driver.set_script_timeout(90)
    return driver


def wait(driver, condition, message, timeout=WAIT):
    """Waits for `condition`; `message` (text, or a function that describes the state at the timeout) says what for."""
    try:
        # A page that navigates while a condition looks at it leaves its elements stale: look again.
        return WebDriverWait(driver, timeout, poll_frequency=0.2, ignored_exceptions=[StaleElementReferenceException]).until(condition)
    except TimeoutException:
        if callable(message):
            try:
                message = message()
            except Exception as error:
                message = f"(could not describe the page: {error.__class__.__name__})"
        raise CheckFailed(f"timed out after {timeout} s: {message}")


def path_of(url):
    return urllib.parse.urlsplit(url).path


def on_login_page(driver):
    return path_of(driver.current_url) == "/login" and len(driver.find_elements(By.ID, "password")) > 0


def elapsed_seconds(text):
    parts = [int(p) for p in text.strip().split(":")]
    seconds = 0
    for p in parts:
        seconds = seconds * 60 + p
    return seconds


def image_loaded(driver, element):
    return driver.execute_script("return arguments[0].complete && arguments[0].naturalWidth > 0", element)


# JavaScript run in the page: play the player (muted, for autoplay) and answer with the promise's outcome.
PLAY_JS = """
const done = arguments[arguments.length - 1];
const v = document.getElementById('player');
if (!v) { done('no video#player'); return; }
v.muted = true;
const p = v.play();
if (p && p.then) p.then(() => done('ok'), (e) => done('play() rejected: ' + e)); else done('ok');
"""

SEEK_JS = """
const target = arguments[0], done = arguments[arguments.length - 1];
const v = document.getElementById('player');
let finished = false;
const finish = (r) => { if (!finished) { finished = true; done(r); } };
v.addEventListener('seeked', () => finish('seeked'), { once: true });
v.addEventListener('error', () => finish('error ' + (v.error && v.error.code)), { once: true });
setTimeout(() => finish('no seeked event within 60 s'), 60000);
v.pause();
v.currentTime = target;
"""

# When the preview the page shows was taken (its X-Scrub-At, asked again: the browser's cache answers).
SCRUB_AT_JS = """
const done = arguments[arguments.length - 1];
fetch(document.getElementById('scrub-preview').src, { credentials: 'same-origin' })
  .then((r) => done(r.headers.get('X-Scrub-At') ? Date.parse(r.headers.get('X-Scrub-At')) : null), () => done(null));
"""

FETCH_STATUS_JS = """
const path = arguments[0], done = arguments[arguments.length - 1];
fetch(path, { credentials: 'same-origin', redirect: 'manual' }).then((r) => done(r.status), (e) => done('fetch failed: ' + e));
"""


def video_state(driver):
    return driver.execute_script("""
const v = document.getElementById('player');
if (!v) return null;
const q = v.getVideoPlaybackQuality ? v.getVideoPlaybackQuality() : null;
return { currentTime: v.currentTime, readyState: v.readyState, duration: v.duration, paused: v.paused,
         error: v.error ? v.error.code + ' ' + (v.error.message || '') : null,
         totalVideoFrames: q ? q.totalVideoFrames : null, decoded: v.webkitDecodedFrameCount,
         width: v.videoWidth, height: v.videoHeight, src: v.currentSrc };
""")


# ---------------------------------------------------------------------------------------------------------------
# The run


class Run:
    def __init__(self, args):
        self.args = args
        self.results = []
        self.state = {}
        self.out = os.path.abspath(args.out)
        os.makedirs(self.out, exist_ok=True)

    def check(self, name, function):
        started = time.monotonic()
        try:
            detail = function()
            ok, message = True, detail or ""
        except CheckFailed as error:
            ok, message = False, str(error)
        except WebDriverException as error:
            ok, message = False, f"webdriver: {error.__class__.__name__}: {(error.msg or '').splitlines()[0] if error.msg else error}"
        except Exception as error:  # a bug in a check is a failed check, never a pass
            ok, message = False, f"{error.__class__.__name__}: {error}\n{traceback.format_exc()}"
        seconds = time.monotonic() - started
        self.results.append((name, ok))
        if not ok:  # what each browser showed when the check failed, for the one who reads the failure
            for key in ("browser", "fresh"):
                if key in self.state:
                    try:
                        self.state[key].save_screenshot(os.path.join(self.out, f"failed-{len(self.results):02d}-{key}.png"))
                    except Exception:
                        pass
        line = f"{'PASS' if ok else 'FAIL'} {name} ({seconds:.1f} s)" + (f": {message}" if message else "")
        print(line, flush=True)
        return ok

    def need(self, key):
        if key not in self.state:
            raise CheckFailed(f"needs {key}, which an earlier check did not produce")
        return self.state[key]

    def screenshot(self, driver, name):
        path = os.path.join(self.out, name + ".png")
        expect(driver.save_screenshot(path), f"could not save {path}")
        expect(os.path.getsize(path) > 1000, f"{path} is nearly empty")
        return path


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", required=True, help="the appliance binary (e.g. .build/debug/appliance)")
    parser.add_argument("--out", required=True, help="folder for the PNG screenshots")
    parser.add_argument("--keep", action="store_true", help="keep the daemon's temporary folder")
    parser.add_argument("--encoder", default="x264", help="the daemon's [video] encoder (default x264)")
    parser.add_argument("--tls", action="store_true",
                        help="the daemon serves HTTPS with its own certificate (tls = \"on\"), which the browser pins")
    parser.add_argument("--live-only", action="store_true",
                        help="stop after the live page's WebRTC check (another encoder's stream in the browser)")
    parser.add_argument("--channels", action="store_true",
                        help="two channels recording side by side: after the login, only the timeline's rows")
    args = parser.parse_args()

    # SIGTERM or SIGINT (e.g. a test runner's time limit) unwinds through the finally blocks, which stop the daemon
    # and the browsers.
    interrupted = []

    def on_signal(number, _frame):
        interrupted.append(signal.Signals(number).name)
        sys.exit(128 + number)
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    # A launcher between the runner and this interpreter (a pyenv shim is a bash script) may be what the runner
    # terminates: when the parent goes away, stop as if terminated.
    parent = os.getppid()

    def watch_parent():
        while os.getppid() == parent:
            time.sleep(1)
        os.kill(os.getpid(), signal.SIGTERM)
    threading.Thread(target=watch_parent, daemon=True).start()

    started = time.monotonic()
    directory = tempfile.mkdtemp(prefix="appliance-browser-test-")
    daemon = Daemon(args.binary, directory, encoder=args.encoder, tls=args.tls, channels=args.channels)
    run = Run(args)
    browsers = []
    try:
        def start_daemon():
            try:
                daemon.start()
            except RuntimeError as error:
                raise CheckFailed(str(error))
            return f"pid {daemon.process.pid} serving {daemon.url} (data in {directory})"
        if not run.check("daemon starts and serves the dashboard", start_daemon):
            return 1
        base = daemon.url
        http = HTTP(base, cafile=daemon.certificate if args.tls else None)
        api = API(http, daemon.password)
        run_checks(run, daemon, base, http, api, browsers, directory)
    finally:
        # Clean up without being interrupted again (a second signal must not leave the daemon running).
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        for browser in browsers:
            try:
                browser.quit()
            except Exception:
                pass
        status = daemon.stop()
        failed = [name for name, ok in run.results if not ok]
        if failed:
            print("---- daemon log (tail) ----\n" + daemon.log_tail(), flush=True)
        if not args.keep and not failed:
            shutil.rmtree(directory, ignore_errors=True)
        passed = len(run.results) - len(failed)
        print(f"daemon stopped (pid {daemon.process.pid if daemon.process else '-'}, exit status {status})", flush=True)
        print(f"screenshots in {run.out}", flush=True)
        print(f"SUMMARY: {passed}/{len(run.results)} checks passed in {time.monotonic() - started:.1f} s"
              + (f"; failed: {', '.join(failed)}" if failed else "")
              + (f"; INTERRUPTED by {interrupted[0]} before the remaining checks ran" if interrupted else ""), flush=True)
    return 0 if run.results and not failed else 1


def timeline_channels(run, base, api, driver):
    """Two channels (front: the default size, rear: 320x180) recording loop segments: the bar has a labelled row per
    channel with each channel's spans in its row, and a click in a row plays that channel's picture (its size in the
    player; the range video's request names the channel)."""
    def recorded(channel):
        today = time.strftime("%Y-%m-%d")
        spans = [s for s in api.ok("GET", "/api/timeline?day=" + today)["spans"] if s.get("channel") == channel]
        return sum(iso_ms(s["end"]) - iso_ms(s["start"]) for s in spans)
    # Two 2 s segments finished in each channel (the range video is made of finished files).
    wait(driver, lambda d: min(recorded("front"), recorded("rear")) >= 5000,
         lambda: f"5 s recorded by each channel (front {recorded('front')} ms, rear {recorded('rear')} ms)", timeout=60)
    now = time.localtime()
    driver.get(f"{base}/timeline?day={time.strftime('%Y-%m-%d', now)}&hour={now.tm_hour}&minute={now.tm_min // 10 * 10}")
    bar = wait(driver, EC.presence_of_element_located((By.CSS_SELECTOR, "#bar.lanes")), "a bar with rows")
    expect(bar.get_attribute("data-lanes") == "front,rear", f"the rows are {bar.get_attribute('data-lanes')!r}")
    labels = [e.text for e in driver.find_elements(By.CSS_SELECTOR, "#bar .lane-label")]
    expect(labels == ["front", "rear"], f"row labels {labels}")
    rows = driver.execute_script("""
        const bar = document.getElementById('bar').getBoundingClientRect(), rows = {};
        for (const s of document.querySelectorAll('#bar .span')) {
          const r = s.getBoundingClientRect();
          (rows[s.dataset.channel] = rows[s.dataset.channel] || []).push([r.top - bar.top, r.bottom - bar.top, r.width]);
        }
        return { height: bar.height, rows };
    """)
    half = rows["height"] / 2
    for channel, inside in (("front", lambda top, bottom: top >= -1 and bottom <= half + 1),
                            ("rear", lambda top, bottom: top >= half - 1 and bottom <= rows["height"] + 1)):
        placed = rows["rows"].get(channel) or []
        expect(placed, f"no {channel} span on the bar: {rows}")
        expect(all(inside(top, bottom) for top, bottom, _ in placed), f"{channel}'s spans outside its row: {rows}")
    run.screenshot(driver, "timeline-channels")
    played = {}
    for channel, lane in (("rear", 1), ("front", 0)):
        span = driver.find_element(By.CSS_SELECTOR, f'#bar .span[data-channel="{channel}"]')
        start, end = float(span.get_attribute("data-start")), float(span.get_attribute("data-end"))
        driver.execute_script("""
            const bar = document.getElementById('bar'), r = bar.getBoundingClientRect(), t = arguments[0], lane = arguments[1];
            const x = r.left + (t - Number(bar.dataset.from)) / (Number(bar.dataset.to) - Number(bar.dataset.from)) * r.width;
            const y = r.top + (lane + 0.5) * r.height / 2;
            for (const type of ['pointermove', 'click']) bar.dispatchEvent(new MouseEvent(type, {clientX: x, clientY: y, bubbles: true}));
        """, (start + end) / 2, lane)
        state = lambda: driver.execute_script("return window.timelineState ? window.timelineState() : null") or {}
        wait(driver, lambda d: state().get("channel") == channel and (video_state(d) or {}).get("width"),
             lambda: f"the player to hold {channel}'s picture (state {video_state(driver)}, {state()})")
        video = video_state(driver)
        expect(f"channel={channel}" in (video.get("src") or ""), f"{channel}: the player's source {video.get('src')}")
        played[channel] = (video["width"], video["height"])
    expect(played["rear"] == (320, 180), f"the rear row played a {played['rear']} picture")
    expect(played["front"][0] > 320, f"the front row played a {played['front']} picture")
    return f"rows {labels}; a click in each row played its picture: {played}"


def live_channels(run, base, api, driver):
    """Two channels on the live page: a tile per channel, each playing its own channel over WebRTC (a session each:
    status counts two viewers), the rear's picture its 320x180. (A loop recorder's / is its timeline: the live page
    is /live.)"""
    driver.get(base + "/live")
    tiles = lambda: driver.execute_script("""
        return [...document.querySelectorAll('.live .picture')].map((t) => {
          const v = t.querySelector('video');
          return { channel: t.dataset.channel || null, live: t.dataset.live || null, why: t.dataset.liveWhy || '',
                   width: v.videoWidth, height: v.videoHeight, caption: (t.querySelector('figcaption') || {}).textContent };
        });""")
    wait(driver, lambda d: len(tiles()) == 2 and all(t["live"] == "webrtc" and t["width"] for t in tiles()),
         lambda: f"both tiles to play over WebRTC: {tiles()}", timeout=60)
    shown = tiles()
    expect([t["caption"] for t in shown] == ["front", "rear"], f"the tiles' captions: {shown}")
    expect((shown[1]["width"], shown[1]["height"]) == (320, 180), f"the rear tile shows {shown[1]}")
    expect(shown[0]["width"] > 320, f"the front tile shows {shown[0]}")
    viewers = api.status()["web"]["webrtc_viewers"]
    expect(viewers == 2, f"status.web.webrtc_viewers is {viewers}, not a session per tile")
    run.screenshot(driver, "live-channels")
    return f"tiles {[(t['caption'], t['width'], t['height']) for t in shown]}; {viewers} WebRTC sessions"


def iso_ms(text):
    """Milliseconds since the epoch of an ISO 8601 moment as the API writes it (2026-11-30T12:00:00.123Z)."""
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp() * 1000


def https_checks(run, daemon, base, driver):
    """Over HTTPS: the login page shows the certificate's fingerprint (the same as openssl's and status's), the
    session cookie is Secure, and http:// on the same port lands on the https:// page."""
    def fingerprint_shown():
        printed = subprocess.run(["openssl", "x509", "-in", daemon.certificate, "-noout", "-fingerprint", "-sha256"],
                                 check=True, capture_output=True, text=True).stdout.strip().split("=")[-1]
        expect(daemon.status()["web"].get("fingerprint") == printed, f"status.web.fingerprint is not openssl's {printed}")
        login = ChromeSession(daemon, "profile-fingerprint")
        try:
            login.driver.get(base + "/login")
            shown = wait(login.driver, EC.presence_of_element_located((By.ID, "fingerprint")), "#fingerprint").text.strip()
        finally:
            login.quit()
        expect(shown == printed, f"the login page shows {shown!r}, openssl {printed!r}")
        return f"{printed[:23]}… on the login page, in status and from openssl"
    run.check("https: the login page shows the certificate's SHA-256 fingerprint", fingerprint_shown)

    def secure_cookie():
        cookies = driver.get_cookies()
        expect(cookies and all(c.get("secure") for c in cookies), f"a cookie without Secure over HTTPS: {cookies}")
        return ", ".join(f"{c['name']} (Secure, HttpOnly={c.get('httpOnly')}, SameSite={c.get('sameSite')})" for c in cookies)
    run.check("https: the session cookie is Secure", secure_cookie)

    def plain_redirected():
        plain = base.replace("https://", "http://", 1)
        driver.get(plain + "/")
        wait(driver, lambda d: d.current_url.startswith(base + "/"), lambda: f"{plain}/ to land on {base}/ (at {driver.current_url})")
        return f"{plain}/ → {driver.current_url}"
    run.check("https: http:// on the same port lands on the https:// page", plain_redirected)


class ChromeSession:
    """A second, fresh browser (no cookies), pinned to the device's certificate like the first."""

    def __init__(self, daemon, profile):
        self.driver = make_browser(os.path.join(daemon.directory, profile), pinned=daemon.certificate)

    def quit(self):
        self.driver.quit()


TALK_TONE = 1000


def tone_file(directory, hz):
    """A 30 s sine WAV (48 kHz mono) for the browser's fake microphone."""
    path = os.path.join(directory, f"microphone-{hz}.wav")
    subprocess.run(["gst-launch-1.0", "-q", "audiotestsrc", f"freq={hz}", "volume=0.5", "num-buffers=1500", "samplesperbuffer=960", "!",
                    "audio/x-raw,format=S16LE,rate=48000,channels=1", "!", "wavenc", "!", "filesink", f"location={path}"],
                   check=True, timeout=120)
    return path


def pitch_and_seconds(samples, rate):
    """(the pitch of what sounds, by zero crossings; how many seconds sound): 10 ms windows above -30 dBFS."""
    window = rate // 100
    sounding = []
    for start in range(0, len(samples) - window, window):
        part = samples[start:start + window]
        if (sum(x * x for x in part) / window) ** 0.5 > 1000:
            sounding.extend(part)
    crossings = sum(1 for a, b in zip(sounding, sounding[1:]) if (a < 0) != (b < 0))
    seconds = len(sounding) / rate
    return (crossings / 2 / seconds if seconds else None), seconds


def clip_sound(path, rate=16000):
    import array
    raw = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-map", "0:a:0", "-ac", "1", "-ar", str(rate), "-f", "s16le", "-"],
                         check=True, capture_output=True, timeout=120).stdout
    return array.array("h", raw)


def talk_check(driver, daemon, api):
    """Talk held for 4 s: the browser's fake microphone (a 1 kHz tone) comes out of the device's speaker (a file sink)
    for about that long, and a recording made meanwhile keeps the device's own microphone (the test tone, 440 Hz)."""
    import array
    from selenium.webdriver.common.action_chains import ActionChains
    talk = wait(driver, lambda d: (lambda b: b if b.is_displayed() else None)(d.find_element(By.ID, "talk")),
                lambda: "the Talk button to show (the answer's audio is send-and-receive): "
                + str(driver.execute_script("const pc = window.livePeer; return pc && [pc.getTransceivers().map((t) => t.mid + ':' + t.currentDirection), "
                                            "(pc.remoteDescription.sdp.match(/m=audio[\\s\\S]*/) || [''])[0].split('\\r\\n').filter((l) => /^a=(send|recv|inactive|rtpmap)/.test(l))]")))
    started = api.ok("POST", "/api/commands/record.start", {"title": "while talking"})
    before = os.path.getsize(daemon.speaker_output) if os.path.exists(daemon.speaker_output) else 0
    played_before = (api.status().get("speaker") or {}).get("played", 0)
    ActionChains(driver).click_and_hold(talk).perform()
    wait(driver, lambda d: d.execute_script("return document.body.dataset.talk") == "on",
         lambda: "talking to start: " + driver.find_element(By.ID, "message").text, timeout=20)
    expect(api.status()["speaker"]["state"] == "talking", "status.speaker says talking")
    time.sleep(4)  # the hold itself: what is measured
    ActionChains(driver).release(talk).perform()
    wait(driver, lambda d: (api.status().get("speaker") or {}).get("played", 0) > played_before, "the talk to end on the speaker", timeout=20)
    stopped = api.ok("POST", "/api/commands/record.stop", {})
    with open(daemon.speaker_output, "rb") as f:
        f.seek(before)
        heard = array.array("h", f.read())
    pitch, seconds = pitch_and_seconds(heard, 48000)
    expect(pitch is not None and abs(pitch - TALK_TONE) < 30, f"the speaker's pitch is {pitch} Hz, not the microphone's {TALK_TONE}")
    expect(3.0 <= seconds <= 5.0, f"the speaker played {seconds:.2f} s for a 4 s hold")
    mine, _ = pitch_and_seconds(clip_sound(stopped["path"])[16000:16000 * 3], 16000)
    expect(mine is not None and abs(mine - 440) < 20, f"the recording's sound is {mine} Hz, not the device's microphone (440)")
    expect(started["id"] == stopped["id"], "one recording across the talk")
    return (f"{seconds:.2f} s of {pitch:.0f} Hz on the speaker for a 4 s hold; the recording's sound {mine:.0f} Hz "
            f"(the device's microphone); {stopped['duration_ms']} ms clip")


def insecure_talk_check(run, daemon, base, browsers, directory):
    """Over plain HTTP under a name that is not localhost (chromium maps appliance.test to 127.0.0.1), the page is not
    a secure context and the browser gives it no microphone: holding Talk says so on the page, and nothing talks."""
    port = urllib.parse.urlsplit(base).port
    driver = make_browser(os.path.join(directory, "profile-insecure"), microphone=tone_file(directory, TALK_TONE),
                          host_rules="MAP appliance.test 127.0.0.1")
    browsers.append(driver)
    origin = f"http://appliance.test:{port}"
    driver.get(origin + "/login")
    field = wait(driver, EC.presence_of_element_located((By.ID, "password")), "the password field at " + origin)
    field.send_keys(daemon.password)
    driver.find_element(By.ID, "login-button").click()
    wait(driver, lambda d: path_of(d.current_url) == "/" and d.find_elements(By.ID, "record"), lambda: f"the live page at {driver.current_url}")
    expect(driver.execute_script("return window.isSecureContext") is False, "the page at appliance.test over HTTP is not a secure context")
    talk = wait(driver, lambda d: (lambda b: b if b.is_displayed() else None)(d.find_element(By.ID, "talk")),
                "the Talk button to show (WebRTC works without a secure context)", timeout=60)
    from selenium.webdriver.common.action_chains import ActionChains
    ActionChains(driver).click_and_hold(talk).perform()
    message = wait(driver, lambda d: (lambda t: t if "HTTPS" in t else None)(d.find_element(By.ID, "message").text),
                   lambda: "the page to say why Talk cannot be: " + driver.find_element(By.ID, "message").text, timeout=20)
    ActionChains(driver).release(talk).perform()
    expect(driver.execute_script("return document.body.dataset.talk") != "on", "the page did not start talking")
    driver.quit()
    browsers.remove(driver)
    return f"{origin}: isSecureContext false, holding Talk says {message!r}"


def run_checks(run, daemon, base, http, api, browsers, directory):
    check, state = run.check, run.state

    # 1. Without a login: pages redirect to /login, the API and media answer 401.
    def raw_gate():
        status, headers, _ = http.request("GET", "/")
        expect(status in (302, 303, 307), f"GET / answered {status}, expected a redirect")
        location = headers.get("location", "")
        expect(location.startswith("/login"), f"GET / redirected to {location!r}")
        status, _, body = http.request("GET", "/api/status")
        expect(status == 401, f"GET /api/status answered {status}: {body[:200]!r}")
        status, _, body = http.request("GET", "/media/0123456789abcdef/video")
        expect(status == 401, f"GET /media/<id>/video answered {status}: {body[:200]!r}")
        status, _, _ = http.request("GET", "/live.mjpeg", timeout=30)
        expect(status == 401, f"GET /live.mjpeg answered {status}")
        status, _, _ = http.request("GET", "/api/status", headers={"Authorization": "Bearer wrong-password"})
        expect(status == 401, f"GET /api/status with a wrong bearer token answered {status}")
        return f"/ → {location}; /api/status, /media/<id>/video, /live.mjpeg, a wrong bearer token: 401"
    check("no login: / redirects, /api/status and /media 401", raw_gate)

    def browser_starts():
        driver = make_browser(os.path.join(directory, "profile-main"), pinned=daemon.certificate if daemon.tls else None,
                              microphone=tone_file(directory, TALK_TONE))
        browsers.append(driver)
        state["browser"] = driver
        return f"chromium {driver.capabilities.get('browserVersion', '?')}"
    if not check("chromium starts (headless, via chromedriver)", browser_starts):
        return
    driver = state["browser"]

    def browser_redirect():
        driver.get(base + "/")
        wait(driver, lambda d: on_login_page(d), lambda: f"/ to land on /login (at {driver.current_url})")
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(driver.current_url).query)
        expect(query.get("next") == ["/"], f"login URL {driver.current_url} does not carry next=/")
        run.screenshot(driver, "login")
        return driver.current_url.replace(base, "")
    check("browser: / redirects to the login form", browser_redirect)

    # 2. Log in: a wrong password first.
    def wrong_password():
        if not on_login_page(driver):
            driver.get(base + "/login")
        wait(driver, EC.presence_of_element_located((By.ID, "password")), "the password field")
        field = driver.find_element(By.ID, "password")
        field.clear()
        field.send_keys("not-the-password")
        began = time.monotonic()
        driver.find_element(By.ID, "login-button").click()
        error = wait(driver, EC.visibility_of_element_located((By.ID, "login-error")), "#login-error after a wrong password")
        took = time.monotonic() - began
        expect(error.text.strip() != "", "#login-error is empty")
        expect(on_login_page(driver), f"a wrong password left the login page: {driver.current_url}")
        status, _, _ = http.request("GET", "/api/status")  # still no access without a login
        expect(status == 401, f"/api/status answered {status} after a failed login")
        run.screenshot(driver, "login-error")
        return f"{error.text.strip()!r} after {took:.2f} s"
    check("login: wrong password shows #login-error", wrong_password)

    def right_password():
        if len(driver.find_elements(By.ID, "password")) == 0:
            driver.get(base + "/login")
        field = wait(driver, EC.presence_of_element_located((By.ID, "password")), "the password field")
        field.clear()
        field.send_keys(daemon.password)
        driver.find_element(By.ID, "login-button").click()
        # A loop recorder (--channels) opens on its timeline instead.
        if daemon.channels:
            wait(driver, lambda d: path_of(d.current_url) == "/timeline" and d.find_elements(By.ID, "bar"),
                 lambda: f"the timeline after logging in (at {driver.current_url})")
        else:
            wait(driver, lambda d: path_of(d.current_url) == "/" and d.find_elements(By.ID, "record"),
                 lambda: f"the live page after logging in (at {driver.current_url})")
        cookies = {c["name"]: c for c in driver.get_cookies()}
        expect(cookies, "no session cookie after logging in")
        session = list(cookies.values())[0]
        expect(session.get("httpOnly"), f"the session cookie is not HttpOnly: {session}")
        state["logged_in"] = True
        return f"cookie {session['name']} (HttpOnly, SameSite={session.get('sameSite')})"
    if not check("login: right password opens the live page", right_password):
        return
    if run.args.channels:
        check("timeline: one row per channel, and a click in a row plays that channel's picture",
              lambda: timeline_channels(run, base, api, driver))
        check("live: a tile per channel, each its channel's picture over WebRTC",
              lambda: live_channels(run, base, api, driver))
        return

    # 3. The live page: WebRTC (WHEP) with its sound a click away, MJPEG for a viewer it refuses, then record.
    def live_webrtc():
        # The login landed here: loading the page again would start a second session while the first one's DELETE
        # may still be on its way (with `webrtc_viewers = 1`, the reload could be refused).
        if path_of(driver.current_url) != "/":
            driver.get(base + "/")
        wait(driver, lambda d: d.execute_script("return document.body.dataset.live"),
             "the live page to choose WebRTC or MJPEG", timeout=60)
        mode = driver.execute_script("return [document.body.dataset.live, document.body.dataset.liveWhy]")
        expect(mode[0] == "webrtc", f"the live page fell back to MJPEG: {mode[1]}")
        frames = lambda: driver.execute_script("return document.getElementById('live-video').getVideoPlaybackQuality().totalVideoFrames")
        first = frames()
        time.sleep(2)
        second = frames()
        expect(second >= first + 30, f"frames decoded went from {first} to {second} in 2 s (30 fps expected)")
        size = driver.execute_script("const v = document.getElementById('live-video'); return [v.videoWidth, v.videoHeight]")
        sound = driver.find_element(By.ID, "sound")
        expect(sound.is_displayed(), "the Sound button shows (an audio track came)")
        # Muted, the session is sent no audio (the page asked for ?sound=off); the click asks for it.
        muted_packets = driver.execute_async_script(AUDIO_PACKETS_JS)
        expect(muted_packets == 0, f"{muted_packets} audio packets came while the sound was off")
        sound.click()
        expect(driver.execute_script("return document.getElementById('live-video').muted") is False, "Sound on unmutes")
        wait(driver, lambda d: d.execute_async_script(AUDIO_PACKETS_JS) > 20, "audio packets after Sound on", timeout=15)
        heard = driver.execute_async_script(AUDIO_PACKETS_JS)
        status = api.status()
        viewers = status["web"]["webrtc_viewers"]
        expect(viewers == 1, f"status.web.webrtc_viewers is {viewers}")
        return (f"WebRTC {size[0]}×{size[1]}, {second - first} frames decoded in 2 s, 0 audio packets muted, "
                f"{heard} after Sound on, status counts 1 viewer, encoder {status.get('encoder')}")
    check("live: the picture plays over WebRTC, frames rising, sound one click away", live_webrtc)
    check("talk: holding Talk plays the browser's microphone on the device's speaker", lambda: talk_check(driver, daemon, api))
    if daemon.tls:
        https_checks(run, daemon, base, driver)
    if run.args.live_only:
        return

    def live_mjpeg_fallback():
        # A second viewer is over `webrtc_viewers = 1`: WHEP answers 409 and that page shows MJPEG by itself.
        first = driver.current_window_handle
        driver.switch_to.new_window("tab")
        try:
            driver.get(base + "/")
            wait(driver, lambda d: d.execute_script("return document.body.dataset.live"), "the second page to choose", timeout=60)
            mode = driver.execute_script("return [document.body.dataset.live, document.body.dataset.liveWhy]")
            expect(mode[0] == "mjpeg", f"the second viewer got {mode[0]}")
            expect("409" in (mode[1] or ""), f"the fallback's reason is the refusal: {mode[1]}")
            img = driver.find_element(By.CSS_SELECTOR, "img#live")
            wait(driver, lambda d: d.execute_script("return arguments[0].naturalWidth > 0", img),
                 "the live MJPEG picture to show (naturalWidth > 0)", timeout=60)
            expect(path_of(img.get_attribute("src")).startswith("/live.mjpeg"), f"img#live src is {img.get_attribute('src')}")
            size = driver.execute_script("return [arguments[0].naturalWidth, arguments[0].naturalHeight]", img)
        finally:
            driver.close()
            driver.switch_to.window(first)
        return f"second viewer refused WebRTC ({mode[1]}), MJPEG {size[0]}×{size[1]}"
    check("live: a viewer refused WebRTC falls back to the MJPEG picture", live_mjpeg_fallback)

    def record_from_button():
        if path_of(driver.current_url) != "/":
            driver.get(base + "/")
        button = wait(driver, EC.element_to_be_clickable((By.ID, "record")), "#record")
        expect(button.get_attribute("data-state") == "idle", f"#record data-state is {button.get_attribute('data-state')} before recording")
        state["ids_before"] = api.recording_ids()
        button.click()
        wait(driver, lambda d: d.find_element(By.ID, "record").get_attribute("data-state") == "recording"
             and d.find_element(By.ID, "record").text.strip() == "Stop", "#record to turn into Stop (data-state=recording)")
        wait(driver, lambda d: elapsed_seconds(d.find_element(By.ID, "elapsed").text) >= 1, "#elapsed to pass 0:01")
        first_text = driver.find_element(By.ID, "elapsed").text
        first, first_at = elapsed_seconds(first_text), time.monotonic()

        def later(d):
            if time.monotonic() - first_at < 1.5:
                return False
            return elapsed_seconds(d.find_element(By.ID, "elapsed").text) > first
        wait(driver, later, f"#elapsed to increase from {first_text}")
        second_text = driver.find_element(By.ID, "elapsed").text
        expect(re.fullmatch(r"\d+:\d\d", second_text.strip()), f"#elapsed is {second_text!r}, not m:ss")
        run.screenshot(driver, "live")
        # Record past 4 s (the daemon's own clock), so the clip is long enough to seek to 2.0.
        deadline = time.monotonic() + WAIT

        def long_enough():
            recording = api.status().get("recording") or {}
            return recording.get("elapsed_ms", 0) >= 4500
        while not long_enough():
            expect(time.monotonic() < deadline, "the recording did not reach 4.5 s in the daemon's status")
            time.sleep(0.25)
        driver.find_element(By.ID, "record").click()
        wait(driver, lambda d: d.find_element(By.ID, "record").text.strip() == "Record"
             and d.find_element(By.ID, "record").get_attribute("data-state") == "idle",
             "#record to go back to Record (data-state=idle)")
        # The new clip: the id the list did not have before.
        def new_clip():
            fresh = [i for i in api.recording_ids() if i not in state["ids_before"]]
            return fresh[0] if fresh else None
        clip = wait(driver, lambda d: new_clip(), "the new clip in /api/recordings")
        state["clip"] = clip
        message = driver.find_element(By.ID, "message").text
        return f"#elapsed {first_text} → {second_text}; stopped ({message!r}); clip {clip}"
    check("live: #record starts, #elapsed counts, #record stops", record_from_button)

    def level_meter():
        # The test microphone is a steady tone: the meter leaves its floor (-60) and its text says dBFS.
        wait(driver, lambda d: float(d.find_element(By.ID, "level").get_attribute("value") or -60) > -50,
             "#level (the microphone's meter) to rise above -50 dBFS")
        text = driver.find_element(By.ID, "level-text").text
        expect(text.endswith("dBFS"), f"#level-text is {text!r}")
        motion = driver.find_element(By.ID, "motion-state").text
        expect(motion in ("motion", "no motion"), f"#motion-state is {motion!r}")
        return f"#level {driver.find_element(By.ID, 'level').get_attribute('value')} ({text}); #motion-state {motion!r}"
    check("live: the sound meter shows the microphone's level, and motion its state", level_meter)

    # 4. The clip on /recordings, with its thumbnail.
    def recordings_grid():
        clip = run.need("clip")
        deadline = time.monotonic() + WAIT
        selector = f'#recordings a.card[data-id="{clip}"]'
        while True:
            driver.get(base + "/recordings")
            wait(driver, EC.presence_of_element_located((By.ID, "recordings")), "#recordings")
            cards = driver.find_elements(By.CSS_SELECTOR, selector)
            thumbs = driver.find_elements(By.CSS_SELECTOR, selector + " img.thumb")
            if thumbs:
                try:
                    WebDriverWait(driver, 10, poll_frequency=0.2).until(lambda d: image_loaded(d, thumbs[0]))
                    break
                except TimeoutException:
                    pass
            if time.monotonic() > deadline:
                raise CheckFailed(f"no card with a loaded img.thumb for {clip} on /recordings "
                                  f"(card present: {bool(cards)}, thumb present: {bool(thumbs)})")
            time.sleep(1)  # the thumbnail is written just after the stop: reload and look again
        card = driver.find_element(By.CSS_SELECTOR, selector)
        href = card.get_attribute("href")
        expect(path_of(href) == f"/recordings/{clip}", f"the card links to {href}")
        width = driver.execute_script("return arguments[0].naturalWidth", thumbs[0])
        run.screenshot(driver, "recordings")
        return f"card for {clip} with a {width} px wide thumbnail"
    check("recordings: the new clip's card with a loaded thumbnail", recordings_grid)

    def webrtc_session_ends():
        # The live page was left (for /recordings): its WHEP session was DELETEd, the daemon counts no viewer.
        deadline = time.monotonic() + 20
        while api.status()["web"]["webrtc_viewers"] != 0:
            expect(time.monotonic() < deadline, "status.web.webrtc_viewers stayed above 0 after the live page was left")
            time.sleep(0.2)
        return "status.web.webrtc_viewers back to 0"
    check("live: leaving the live page ends its WebRTC session", webrtc_session_ends)

    # 5. The clip page: play, seek, a decoded frame.
    def play_and_seek():
        clip = run.need("clip")
        driver.get(f"{base}/recordings/{clip}")
        wait(driver, EC.presence_of_element_located((By.ID, "player")), "video#player")
        wait(driver, lambda d: (video_state(d) or {}).get("readyState", 0) >= 1 or (video_state(d) or {}).get("error"),
             "the clip's metadata (readyState ≥ 1)")
        before = video_state(driver)
        expect(not before.get("error"), f"the video element failed: {before}")
        expect(before["duration"] >= 3, f"the clip is {before['duration']} s long, expected ≥ 3 s")
        outcome = driver.execute_async_script(PLAY_JS)
        expect(outcome == "ok", f"play(): {outcome}")
        wait(driver, lambda d: (video_state(d) or {}).get("currentTime", 0) > 1 or (video_state(d) or {}).get("error"),
             "playback past 1 s")
        played = video_state(driver)
        expect(not played.get("error"), f"the video element failed while playing: {played}")
        outcome = driver.execute_async_script(SEEK_JS, 2.0)
        expect(outcome == "seeked", f"seek to 2.0: {outcome}")
        wait(driver, lambda d: (video_state(d) or {}).get("readyState", 0) >= 2, "readyState ≥ 2 after the seek")
        after = video_state(driver)
        expect(abs(after["currentTime"] - 2.0) <= 0.2, f"currentTime after seeking to 2.0 is {after['currentTime']}")
        frames = max(after.get("totalVideoFrames") or 0, after.get("decoded") or 0)
        expect(frames > 0, f"no decoded video frame: {after}")
        expect(after["width"] > 0 and after["height"] > 0, f"no video size: {after}")
        run.screenshot(driver, "clip")
        return (f"duration {after['duration']:.2f} s, played to {played['currentTime']:.2f} s, seeked to "
                f"{after['currentTime']:.3f} s, {frames} frames decoded, {after['width']}×{after['height']}")
    check("clip: video#player plays past 1 s and seeks to 2.0 with a decoded frame", play_and_seek)

    # 6. Rename.
    def rename():
        clip = run.need("clip")
        if path_of(driver.current_url) != f"/recordings/{clip}":
            driver.get(f"{base}/recordings/{clip}")
        title = "Browser test <clip> & more " + secrets.token_hex(3)
        field = wait(driver, EC.element_to_be_clickable((By.ID, "title-input")), "#title-input")
        field.clear()
        field.send_keys(title)
        driver.find_element(By.ID, "rename").click()
        wait(driver, lambda d: d.find_element(By.ID, "clip-title").text == title,
             lambda: f"#clip-title to show {title!r} (shows {driver.find_element(By.ID, 'clip-title').text!r}, "
                     f"#message {driver.find_element(By.ID, 'message').text!r})")
        record = api.ok("GET", f"/api/recordings/{clip}")
        expect(record.get("title") == title, f"the API says the title is {record.get('title')!r}, expected {title!r}")
        driver.refresh()  # and the page as the server renders it
        wait(driver, lambda d: d.find_element(By.ID, "clip-title").text == title, "#clip-title after a reload")
        return f"title {title!r} on the page, after a reload and in the API"
    check("clip: rename shows the new title and the API agrees", rename)

    # 7. Lock refuses delete; unlock, then delete.
    def locked_delete_refused():
        clip = run.need("clip")
        if path_of(driver.current_url) != f"/recordings/{clip}":
            driver.get(f"{base}/recordings/{clip}")
        wait(driver, EC.element_to_be_clickable((By.ID, "lock")), "#lock").click()
        wait(driver, EC.visibility_of_element_located((By.ID, "unlock")), "#unlock to show after locking")
        wait(driver, lambda d: d.find_element(By.ID, "message").text == "Locked", "#message Locked")
        expect(api.ok("GET", f"/api/recordings/{clip}").get("locked") is True, "the API does not say locked")
        driver.find_element(By.ID, "delete").click()
        alert = wait(driver, EC.alert_is_present(), "the confirm() dialog")
        alert.accept()
        wait(driver, lambda d: d.find_element(By.ID, "message").text not in ("", "Locked"),
             "#message to show why the delete was refused")
        message = driver.find_element(By.ID, "message").text
        expect(path_of(driver.current_url) == f"/recordings/{clip}", f"the page left to {driver.current_url}")
        status, value = api.call("GET", f"/api/recordings/{clip}")
        expect(status == 200, f"the locked clip is gone: API {status} {value}")
        return f"refused: {message!r}; API still 200"
    check("clip: lock, then delete is refused and the clip stays", locked_delete_refused)

    def unlock_and_delete():
        clip = run.need("clip")
        if path_of(driver.current_url) != f"/recordings/{clip}":
            driver.get(f"{base}/recordings/{clip}")
        wait(driver, EC.element_to_be_clickable((By.ID, "unlock")), "#unlock").click()
        wait(driver, EC.visibility_of_element_located((By.ID, "lock")), "#lock to show after unlocking")
        wait(driver, lambda d: d.find_element(By.ID, "message").text == "Unlocked", "#message Unlocked")
        expect(api.ok("GET", f"/api/recordings/{clip}").get("locked") is False, "the API still says locked")
        driver.find_element(By.ID, "delete").click()
        wait(driver, EC.alert_is_present(), "the confirm() dialog").accept()
        def where():
            messages = driver.find_elements(By.ID, "message")
            return f"navigation to /recordings (at {driver.current_url}, #message {messages[0].text if messages else None!r})"
        wait(driver, lambda d: path_of(d.current_url) == "/recordings", where)
        status, value = api.call("GET", f"/api/recordings/{clip}")
        expect(status == 404, f"the deleted clip answers {status}: {value}")
        cards = driver.find_elements(By.CSS_SELECTOR, f'#recordings a.card[data-id="{clip}"]')
        expect(not cards, "the deleted clip still has a card on /recordings")
        return "deleted; /recordings without it; API 404"
    check("clip: unlock, then delete goes to /recordings and the API says 404", unlock_and_delete)

    # 8. Share links.
    def second_clip():
        before = api.recording_ids()
        api.ok("POST", "/api/commands/record.start", {"title": "shared clip"})
        deadline = time.monotonic() + WAIT
        while (api.status().get("recording") or {}).get("elapsed_ms", 0) < 4500:
            expect(time.monotonic() < deadline, "the second recording did not reach 4.5 s")
            time.sleep(0.25)
        stopped = api.ok("POST", "/api/commands/record.stop", {})
        deadline = time.monotonic() + WAIT
        while True:
            fresh = [i for i in api.recording_ids() if i not in before]
            if fresh:
                break
            expect(time.monotonic() < deadline, f"no new clip after record.stop ({stopped})")
            time.sleep(0.25)
        state["clip2"] = fresh[0]
        return f"clip {fresh[0]} via the API (bearer token)"
    check("share: record a second clip through the API", second_clip)

    def make_share():
        clip = run.need("clip2")
        driver.get(f"{base}/recordings/{clip}")
        wait(driver, EC.element_to_be_clickable((By.ID, "share")), "#share").click()
        link = wait(driver, EC.presence_of_element_located((By.CSS_SELECTOR, "#shares li a.share-link")), "a share link in #shares")
        href = link.get_attribute("href")
        expect(re.fullmatch(r"/s/[A-Za-z0-9_-]{20,}", path_of(href) or ""), f"the share link is {href}")
        token = path_of(href)[len("/s/"):]
        li = driver.find_element(By.CSS_SELECTOR, "#shares li")
        link_id = li.get_attribute("data-id")
        expect(re.fullmatch(r"[0-9a-f]{16}", link_id or ""), f"li data-id {link_id}")
        listed = api.ok("GET", "/api/shares")
        expect(any(s.get("id") == link_id and s.get("recording_id") == clip for s in listed.get("items", [])),
               f"/api/shares does not list {link_id} for {clip}: {listed}")
        expect(token not in json.dumps(listed), "/api/shares shows the token: the device keeps only its hash")
        state["share_url"] = base + "/s/" + token
        state["share_token"] = token
        state["share_id"] = link_id
        return f"{state['share_url']}"
    check("share: #share makes a link in #shares", make_share)

    def share_in_fresh_browser():
        url = run.need("share_url")
        fresh = make_browser(os.path.join(directory, "profile-fresh"))
        browsers.append(fresh)
        state["fresh"] = fresh
        expect(fresh.get_cookies() == [], "the fresh browser has cookies")
        fresh.get(url)
        wait(fresh, EC.presence_of_element_located((By.ID, "player")), "video#player on the share page")
        wait(fresh, lambda d: (video_state(d) or {}).get("readyState", 0) >= 1 or (video_state(d) or {}).get("error"),
             "the shared clip's metadata")
        outcome = fresh.execute_async_script(PLAY_JS)
        expect(outcome == "ok", f"play(): {outcome}")
        wait(fresh, lambda d: (video_state(d) or {}).get("currentTime", 0) > 0.5 or (video_state(d) or {}).get("error"),
             "the shared clip to play past 0.5 s")
        played = video_state(fresh)
        expect(not played.get("error"), f"the shared video failed: {played}")
        expect(path_of(played["src"]) == f"/s/{state['share_token']}/video", f"the share page plays {played['src']}")
        expect(not fresh.find_elements(By.ID, "logout"), "the share page shows the dashboard's navigation")
        run.screenshot(fresh, "share")
        return f"played to {played['currentTime']:.2f} s of {played['duration']:.2f} s without a login"
    check("share: the link plays in a fresh browser without a login", share_in_fresh_browser)

    def fresh_browser_gated():
        fresh = run.need("fresh")
        clip = run.need("clip2")
        pages = ["/", "/recordings", f"/recordings/{clip}", "/settings"]
        for page in pages:
            fresh.get(base + page)
            wait(fresh, lambda d: on_login_page(d), lambda: f"{page} to redirect to /login in the fresh browser (at {fresh.current_url})")
        expect(fresh.get_cookies() == [], f"the fresh browser got cookies: {fresh.get_cookies()}")
        fresh.get(run.need("share_url"))  # a page of this origin, to fetch from
        wait(fresh, EC.presence_of_element_located((By.ID, "player")), "the share page")
        answers = {p: fresh.execute_async_script(FETCH_STATUS_JS, p)
                   for p in ["/api/status", "/api/recordings", f"/media/{clip}/video", f"/media/{clip}/thumbnail", "/api/shares"]}
        wrong = {p: s for p, s in answers.items() if s != 401}
        expect(not wrong, f"without a login these did not answer 401: {wrong}")
        return f"{', '.join(pages)} → /login; " + ", ".join(f"{p} {s}" for p, s in answers.items())
    check("share: the fresh browser reaches nothing else (pages → /login, API/media 401)", fresh_browser_gated)

    def settings_page():
        driver.get(base + "/settings")
        wait(driver, EC.presence_of_element_located((By.ID, "config")), "#config on /settings")
        config = driver.find_element(By.ID, "config").text
        expect("[web]" in config or "web" in config, "the config shown does not mention [web]")
        expect(daemon.password not in driver.page_source, "the settings page shows the password")
        link_id = run.need("share_id")
        rows = driver.find_elements(By.CSS_SELECTOR, f'#shares li[data-id="{link_id}"]')
        expect(rows, f"the share link {link_id} is not listed on /settings")
        expect(run.need("share_token") not in driver.page_source, "/settings shows a share token")
        expect(driver.find_elements(By.ID, "backup-state"), "#backup-state missing")
        run.screenshot(driver, "settings")
        return "config shown (no password), share link listed"
    check("settings: the page shows the config and the share link", settings_page)

    def csrf_from_another_origin():
        # A page of another origin (another port: same site, so the session cookie goes along) posts a command to the
        # dashboard with a form and a fetch: neither has the session's CSRF token, so neither may do anything.
        target = base + "/api/commands/record.start"
        page = ("<!doctype html><title>elsewhere</title><form id=f method=post enctype=text/plain action='" + target + "'>"
                "<input name='{\"title\":\"csrf\",\"x\":\"' value='\"}'></form><script>"
                "fetch('" + target + "', {method: 'POST', credentials: 'include', mode: 'no-cors', body: '{}'})"
                ".finally(() => setTimeout(() => document.getElementById('f').submit(), 300));</script>").encode()

        class Attacker(BaseHTTPRequestHandler):
            def do_GET(self):
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(page)))
                self.end_headers()
                self.wfile.write(page)

            def log_message(self, *args):
                pass
        server = ThreadingHTTPServer(("127.0.0.1", 0), Attacker)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            driver.get(f"http://127.0.0.1:{server.server_address[1]}/")
            wait(driver, lambda d: d.current_url.startswith(base), lambda: f"the form to land on the dashboard (at {driver.current_url})")
            body = driver.find_element(By.TAG_NAME, "body").text
        finally:
            server.shutdown()
        expect('"forbidden"' in body or '"unauthorized"' in body, f"the other origin's form was answered {body[:200]!r}")
        expect(api.status()["state"] == "idle", "a command from another origin started a recording")
        return f"form and fetch from 127.0.0.1:{server.server_address[1]} refused: {body[:90]!r}"
    check("csrf: a form and a fetch from another origin change nothing", csrf_from_another_origin)

    def accounts_settings():
        driver.get(base + "/settings")
        wait(driver, EC.presence_of_element_located((By.ID, "user-add")), "the accounts form on /settings")
        driver.find_element(By.ID, "user-add-name").send_keys("vic")
        driver.find_element(By.ID, "user-add-password").send_keys("vics-password-1")
        driver.find_element(By.CSS_SELECTOR, "#user-add button").click()
        row = wait(driver, EC.presence_of_element_located((By.CSS_SELECTOR, 'tr[data-user="vic"]')), "vic's row after adding")
        role = row.find_element(By.CSS_SELECTOR, "select.user-role").get_attribute("value")
        expect(role == "viewer", f"vic was added as {role}")
        row.find_element(By.CSS_SELECTOR, "button.user-token").click()
        shown = wait(driver, EC.visibility_of_element_located((By.ID, "user-token")), "the new API token")
        token = shown.text.strip()
        expect(token.startswith("apl_"), f"the token shown is {token!r}")
        users = api.ok("GET", "/api/users")["items"]
        expect([(u["name"], u["role"], u["tokens"]) for u in users] == [("vic", "viewer", 1)], f"/api/users: {users}")
        expect("vics-password-1" not in driver.page_source, "the settings page shows the password")
        run.screenshot(driver, "accounts")
        state["viewer_token"] = token
        return f"vic added as a viewer from the page, API token {token[:8]}… shown once"
    check("accounts: an admin adds a viewer and makes an API token on /settings", accounts_settings)

    def viewer_session():
        fresh = run.need("fresh")
        fresh.delete_all_cookies()
        fresh.get(base + "/login")
        wait(fresh, EC.presence_of_element_located((By.ID, "user")), "the login form's name field").send_keys("vic")
        fresh.find_element(By.ID, "password").send_keys("vics-password-1")
        fresh.find_element(By.ID, "login-button").click()
        wait(fresh, lambda d: "viewer" in (d.find_element(By.TAG_NAME, "body").get_attribute("class") or ""), "the live page as vic")
        hidden = [i for i in ("record", "camera", "protect") if fresh.find_element(By.ID, i).is_displayed()]
        expect(not hidden, f"a viewer is offered {hidden}")
        expect(not fresh.find_element(By.CSS_SELECTOR, 'nav a[href="/settings"]').is_displayed(), "a viewer is offered Settings")
        answer = fresh.execute_async_script("""
            const done = arguments[arguments.length - 1];
            fetch('/api/commands/record.toggle', { method: 'POST', credentials: 'same-origin', body: '{}', headers: {
              'Content-Type': 'application/json', 'X-CSRF-Token': document.querySelector('meta[name="csrf"]').content } })
              .then(async (r) => done([r.status, (await r.json()).error.message]), (e) => done(['fetch failed', String(e)]));
        """)
        expect(answer[0] == 403 and "admin role" in answer[1], f"the viewer's record.toggle answered {answer}")
        message = answer[1]
        expect(api.status()["state"] == "idle", "a viewer's request started a recording")
        fresh.get(base + "/settings")
        wait(fresh, lambda d: "admin role" in d.page_source, "the settings page refused to a viewer")
        # The admin sees vic's session and ends it: vic's next request needs a login again.
        driver.get(base + "/settings")
        item = wait(driver, EC.presence_of_element_located((By.XPATH, '//ul[@id="sessions"]/li[span[@class="session-user" and text()="vic"]]')),
                    "vic's session on /settings")
        item.find_element(By.CSS_SELECTOR, "button.session-revoke").click()
        wait(driver, lambda d: not d.find_elements(By.XPATH, '//ul[@id="sessions"]/li[span[@class="session-user" and text()="vic"]]'),
             "vic's session to go from the list")
        fresh.get(base + "/recordings")
        wait(fresh, lambda d: on_login_page(d), lambda: f"vic back at /login after the revoke (at {fresh.current_url})")
        return f"admin controls hidden; record refused: {message!r}; /settings refused; session revoked by the admin"
    check("accounts: a viewer logs in with a name, is not offered and is refused record and settings, and an admin ends its session", viewer_session)

    def revoke():
        clip = run.need("clip2")
        token = run.need("share_token")
        driver.get(f"{base}/recordings/{clip}")
        selector = f'#shares li[data-id="{run.need("share_id")}"]'
        wait(driver, EC.presence_of_element_located((By.CSS_SELECTOR, selector + " button.revoke")), "the revoke button").click()
        wait(driver, lambda d: not d.find_elements(By.CSS_SELECTOR, selector), "the link's li to go away")
        status, _, _ = http.request("GET", f"/s/{token}")
        expect(status == 404, f"the revoked link answers {status}")
        status, _, _ = http.request("GET", f"/s/{token}/video")
        expect(status == 404, f"the revoked link's video answers {status}")
        fresh = run.need("fresh")
        fresh.get(run.need("share_url"))
        wait(fresh, lambda d: d.find_elements(By.TAG_NAME, "body"), "the revoked link's page in the fresh browser")
        expect(not fresh.find_elements(By.ID, "player"), "the fresh browser still gets the player from a revoked link")
        listed = api.ok("GET", "/api/shares")
        expect(all(s.get("id") != run.need("share_id") for s in listed.get("items", [])), "/api/shares still lists the revoked link")
        driver.refresh()
        wait(driver, EC.presence_of_element_located((By.ID, "player")), "the clip page after a reload")
        expect(not driver.find_elements(By.CSS_SELECTOR, selector), "the revoked link is back after a reload")
        return f"/s/{token[:6]}… now 404 (page and video), gone from /api/shares"
    check("share: revoke in the first browser, then the link is 404", revoke)

    # 9. Events: motion while recording is an activity with a picture on /activity; Play opens its clip where it began.
    def motion_activity():
        before = api.recording_ids()
        known = {a["id"] for a in api.ok("GET", "/api/activity?kind=motion&limit=1000")["items"]}
        api.ok("POST", "/api/commands/record.start", {"title": "motion clip"})
        time.sleep(1.5)  # some still picture first, so the motion starts inside the clip
        api.ok("POST", "/api/commands/switch", {"camera": "second"})
        deadline = time.monotonic() + WAIT
        while not (api.status().get("motion") or {}).get("active"):
            expect(time.monotonic() < deadline, f"no motion on the ball camera: {api.status().get('motion')}")
            time.sleep(0.25)
        time.sleep(2)
        api.ok("POST", "/api/commands/switch", {"camera": "main"})  # a new picture: the detector recalibrates and the motion ends

        def ended():
            items = api.ok("GET", "/api/activity?kind=motion&limit=1000")["items"]
            return [a for a in items if a["id"] not in known and a.get("camera") == "second" and a.get("ended_at")]
        while not ended():
            expect(time.monotonic() < deadline, "the ball's motion was not stored as an ended activity")
            time.sleep(0.25)
        activity = ended()[0]
        time.sleep(1)
        api.ok("POST", "/api/commands/record.stop", {})
        while not [i for i in api.recording_ids() if i not in before]:
            expect(time.monotonic() < deadline, "no new clip after record.stop")
            time.sleep(0.25)
        state["activity"] = activity
        state["motion_clip"] = [i for i in api.recording_ids() if i not in before][0]
        expect(activity.get("picture_url") == f"/media/activity/{activity['id']}/picture", f"picture_url: {activity}")
        status, _, _ = http.request("GET", activity["picture_url"])
        expect(status == 401, f"the activity's picture answers {status} without a login")
        return f"activity {activity['id']} ({activity.get('duration_s')} s, peak {activity.get('peak')}) in clip {state['motion_clip']}"
    check("events: motion on the ball camera while recording is a stored activity with a picture", motion_activity)

    def activity_page():
        activity, clip = run.need("activity"), run.need("motion_clip")
        driver.get(base + "/activity?kind=motion")
        selector = f'#activity .card[data-id="{activity["id"]}"]'
        card = wait(driver, EC.presence_of_element_located((By.CSS_SELECTOR, selector)), f"the card of activity {activity['id']}")
        picture = card.find_element(By.CSS_SELECTOR, "img.thumb")
        WebDriverWait(driver, 10, poll_frequency=0.2).until(lambda d: image_loaded(d, picture))
        width = driver.execute_script("return arguments[0].naturalWidth", picture)
        expect(card.get_attribute("data-kind") == "motion", f"data-kind {card.get_attribute('data-kind')}")
        run.screenshot(driver, "activity")
        detail = api.ok("GET", f"/api/activity/{activity['id']}")
        expect(any(r["id"] == clip for r in detail["recordings"]), f"/api/activity/{activity['id']} does not list clip {clip}")
        card.find_element(By.CSS_SELECTOR, "a.play").click()
        wait(driver, lambda d: path_of(d.current_url) == f"/recordings/{clip}", lambda: f"Play to open /recordings/{clip} (at {driver.current_url})")
        start = float(urllib.parse.parse_qs(urllib.parse.urlsplit(driver.current_url).query)["t"][0])
        expect(detail.get("play_url") == f"/recordings/{clip}?t={start:.1f}", f"play_url {detail.get('play_url')} ≠ the page's")
        expect(start >= 1, f"the motion starts {start} s into the clip, after 1.5 s of still picture")
        wait(driver, lambda d: (video_state(d) or {}).get("readyState", 0) >= 1 and abs((video_state(d) or {}).get("currentTime", 0) - start) < 0.6,
             lambda: f"the player at {start} s (state {video_state(driver)})")
        at = video_state(driver)["currentTime"]
        outcome = driver.execute_async_script(PLAY_JS)
        expect(outcome == "ok", f"play(): {outcome}")
        return f"card with a {width} px picture; Play → /recordings/{clip}?t={start:.1f}, player at {at:.2f} s"
    check("events: /activity lists it with its picture and Play starts the clip where the motion began", activity_page)

    # 10. The timeline: today's bar has the clips as spans and the motion as an event; a click on a span plays that moment
    # in the page's player.
    def timeline_bar():
        activity, clip = run.need("activity"), run.need("motion_clip")
        driver.get(base + "/timeline")
        bar = wait(driver, EC.presence_of_element_located((By.ID, "bar")), "#bar on /timeline")
        span = wait(driver, EC.presence_of_element_located((By.CSS_SELECTOR, f'#bar .span[data-first="{clip}"]')),
                    f"a span starting with clip {clip}")
        width = driver.execute_script("return arguments[0].getBoundingClientRect().width", span)
        expect(width >= 1, f"the span is {width} px wide")
        ticks = driver.find_elements(By.CSS_SELECTOR, f'#bar a.event.motion[data-id="{activity["id"]}"]')
        expect(ticks, f"no motion mark for activity {activity['id']} on the bar")
        spans = len(driver.find_elements(By.CSS_SELECTOR, "#bar .span"))
        api_spans = len(api.ok("GET", "/api/timeline?day=" + driver.find_element(By.ID, "day").get_attribute("value"))["spans"])
        expect(spans == api_spans, f"{spans} spans on the bar, {api_spans} in /api/timeline")
        run.screenshot(driver, "timeline")
        # Zoomed to the clip's hour (a pixel of the day's bar is about a minute), a click in the middle of its span.
        hour = driver.execute_script("return new Date(Number(arguments[0])).getHours()", span.get_attribute("data-start"))
        day = driver.find_element(By.ID, "day").get_attribute("value")
        driver.get(f"{base}/timeline?day={day}&hour={hour}")
        span = wait(driver, EC.presence_of_element_located((By.CSS_SELECTOR, f'#bar .span[data-first="{clip}"]')), "the span in the hour's bar")
        start, end = float(span.get_attribute("data-start")), float(span.get_attribute("data-end"))
        middle = (start + end) / 2
        # The pointer over the span shows the scrubbing preview of that moment (written while it was recorded): in the
        # ten minutes around it, where the clip is many pixels wide (on the hour's bar it may be under two).
        minute = driver.execute_script("return new Date(Number(arguments[0])).getMinutes()", str(middle)) // 10 * 10
        driver.get(f"{base}/timeline?day={day}&hour={hour}&minute={minute}")
        wait(driver, EC.presence_of_element_located((By.CSS_SELECTOR, f'#bar .span[data-first="{clip}"]')), "the span in ten minutes")
        driver.execute_script("""
            const bar = document.getElementById('bar'), r = bar.getBoundingClientRect(), t = arguments[0];
            const x = r.left + (t - Number(bar.dataset.from)) / (Number(bar.dataset.to) - Number(bar.dataset.from)) * r.width;
            bar.dispatchEvent(new MouseEvent('pointermove', {clientX: x, clientY: r.top + 10, bubbles: true}));
        """, middle)
        preview = wait(driver, lambda d: d.execute_script(
            "const p = document.getElementById('scrub-preview'); return p && !p.hidden && p.complete && p.naturalWidth ? p.naturalWidth : 0"),
            "the scrubbing preview under the pointer")
        expect(preview == 160, f"the preview is {preview} px wide")
        taken = driver.execute_async_script(SCRUB_AT_JS)
        # The page asks for the 2 s step the pointer is in, and gets the last preview at or before it (2 s apart).
        expect(taken is not None and -1 <= (middle - taken) / 1000 <= 4.5,
               f"the preview was taken at {taken}, the pointer is at {middle}: not the preview of that moment")
        run.screenshot(driver, "timeline-scrub")
        driver.get(f"{base}/timeline?day={day}&hour={hour}")
        span = wait(driver, EC.presence_of_element_located((By.CSS_SELECTOR, f'#bar .span[data-first="{clip}"]')), "the span in the hour's bar")
        driver.execute_script("""
            const bar = document.getElementById('bar'), r = bar.getBoundingClientRect(), t = arguments[0];
            const x = r.left + (t - Number(bar.dataset.from)) / (Number(bar.dataset.to) - Number(bar.dataset.from)) * r.width;
            for (const type of ['pointermove', 'click']) bar.dispatchEvent(new MouseEvent(type, {clientX: x, clientY: r.top + 10, bubbles: true}));
        """, middle)
        state = lambda: driver.execute_script("return window.timelineState ? window.timelineState() : null") or {}
        wait(driver, lambda d: (video_state(d) or {}).get("readyState", 0) >= 1 and state().get("wall"),
             lambda: f"the page's player to hold the moment clicked (state {video_state(driver)}, {state()})")
        at = state()["wall"]
        # A pixel of an hour's bar is about 3 s.
        expect(abs(at - middle) <= 3500, f"playing {(at - start) / 1000:.1f} s into the clip, clicked {(middle - start) / 1000:.1f} s")
        return f"{spans} spans (as /api/timeline), motion mark {activity['id']}, a {preview} px preview taken {(middle - taken) / 1000:.1f} s before the pointer; click → the page's player at {(at - start) / 1000:.1f} s into the clip"
    check("timeline: the bar shows the clips and the motion, and a click plays that moment", timeline_bar)

    # 11. The seeded day of loop segments: the calendar marks the day; the hour's bar shows them as one span, then a gap; a click plays that
    # moment in the page, playback crosses file boundaries with frames still rising; n jumps to the next event; on a
    # phone-sized window nothing is wider than the screen.
    def timeline_playback():
        start = daemon.seeded_start * 1000
        driver.get(f"{base}/timeline?day={daemon.seeded_day}&hour=12")
        wait(driver, EC.presence_of_element_located((By.CSS_SELECTOR, "#bar .span")), "the seeded span on the bar")
        spans = driver.find_elements(By.CSS_SELECTOR, "#bar .span")
        expect(len(spans) == 1, f"{len(spans)} spans for 30 back-to-back files")
        first, last = float(spans[0].get_attribute("data-start")), float(spans[0].get_attribute("data-end"))
        expect(abs(first - start) < 1000 and abs(last - start - 300_000) < 1000, f"the span {first}–{last}, seeded {start}–{start + 300_000}")
        gaps = [float(g.get_attribute("data-start")) for g in driver.find_elements(By.CSS_SELECTOR, "#bar .gap")]
        expect(len(gaps) == 1 and abs(gaps[0] - last) < 1000, f"gaps at {gaps} in the hour, expected one after the span (it starts with the hour)")
        gaps = len(gaps)
        driver.find_element(By.CSS_SELECTOR, "#calendar summary").click()
        marked = driver.find_element(By.CSS_SELECTOR, f'#calendar .cal-day[data-day="{daemon.seeded_day}"]')
        expect(marked.is_displayed() and {"recorded", "events", "selected"} <= set(marked.get_attribute("class").split()),
               f"the seeded day in the calendar: class {marked.get_attribute('class')!r}")
        target = start + 17_000  # 7 s into the second file
        driver.execute_script("""
            const bar = document.getElementById('bar'), r = bar.getBoundingClientRect(), t = arguments[0];
            const x = r.left + (t - Number(bar.dataset.from)) / (Number(bar.dataset.to) - Number(bar.dataset.from)) * r.width;
            for (const type of ['pointermove', 'click']) bar.dispatchEvent(new MouseEvent(type, {clientX: x, clientY: r.top + 10, bubbles: true}));
        """, target)
        state = lambda: driver.execute_script("return window.timelineState ? window.timelineState() : null") or {}
        wait(driver, lambda d: (video_state(d) or {}).get("readyState", 0) >= 2 and state().get("wall"),
             lambda: f"the page's player to play (state {video_state(driver)}, {state()})")
        begun = state()["wall"]
        # A pixel of the hour's bar is about 3 s.
        expect(abs(begun - target) < 4000, f"playing from {(begun - start) / 1000:.1f} s, clicked at 17 s")
        frames = (video_state(driver) or {}).get("totalVideoFrames") or 0
        boundary = start + 30_000 if begun >= start + 19_000 else start + 20_000
        wait(driver, lambda d: (state().get("wall") or 0) > boundary + 1500,
             lambda: f"playback past the file boundary at {(boundary - start) / 1000:.0f} s (at {((state().get('wall') or 0) - start) / 1000:.1f} s, {video_state(driver)})")
        after = video_state(driver) or {}
        expect((after.get("totalVideoFrames") or 0) > frames + 30, f"frames {frames} → {after.get('totalVideoFrames')}: not rising across the boundary")
        expect(not after.get("error"), f"player error {after.get('error')}")
        events = sorted(float(e.get_attribute("data-start")) for e in driver.find_elements(By.CSS_SELECTOR, "#bar a.event"))
        now = state()["wall"]
        following = next((e for e in events if e > now + 1000), None)
        expect(following is not None, f"no event after {(now - start) / 1000:.0f} s among {[(e - start) / 1000 for e in events]}")
        driver.find_element(By.TAG_NAME, "body").send_keys("n")
        wait(driver, lambda d: abs((state().get("wall") or 0) - following) < 1500,
             lambda: f"n to jump to the event at {(following - start) / 1000:.0f} s (at {((state().get('wall') or 0) - start) / 1000:.1f} s)")
        run.screenshot(driver, "timeline-player")
        size = driver.get_window_size()
        driver.set_window_size(390, 844)
        try:
            driver.get(f"{base}/timeline?day={daemon.seeded_day}&hour=12")
            wait(driver, EC.presence_of_element_located((By.CSS_SELECTOR, "#bar .span")), "the bar on a phone-sized window")
            layout = driver.execute_script("""
                const w = window.innerWidth, wide = [...document.querySelectorAll('#bar, #timeline-controls button, nav a')]
                  .filter((el) => el.getBoundingClientRect().right > w + 1).map((el) => el.id || el.textContent);
                return { width: w, scroll: document.documentElement.scrollWidth, bar: document.getElementById('bar').getBoundingClientRect().width, wide };
            """)
            expect(layout["scroll"] <= layout["width"] + 1 and not layout["wide"], f"wider than the {layout['width']} px screen: {layout}")
            expect(layout["bar"] >= layout["width"] * 0.85, f"the bar is {layout['bar']} px of {layout['width']}")
            run.screenshot(driver, "timeline-phone")
        finally:
            driver.set_window_size(size["width"], size["height"])
        return (f"calendar marks {daemon.seeded_day}; 1 span, {gaps} gaps; click at 17 s → playing from {(begun - start) / 1000:.1f} s, past {(boundary - start) / 1000:.0f} s with "
                f"{after.get('totalVideoFrames')} frames; n → event at {(following - start) / 1000:.0f} s; phone {layout['width']} px fits")
    check("timeline: a click plays the day's segments as one video across boundaries, n jumps to the next event, a phone fits", timeline_playback)

    def screenshots():
        names = ["login", "live", "recordings", "clip", "share", "settings", "activity", "timeline", "timeline-scrub", "timeline-player", "timeline-phone"]
        missing = [n for n in names if not os.path.exists(os.path.join(run.out, n + ".png"))]
        expect(not missing, f"no screenshot of: {', '.join(missing)}")
        with open(os.path.join(run.out, "live.png"), "rb") as f:
            expect(f.read(8) == b"\x89PNG\r\n\x1a\n", "live.png is not a PNG")
        return ", ".join(n + ".png" for n in names) + f" in {run.out}"
    check("screenshots: one PNG per page", screenshots)
    if not daemon.tls:
        check("talk: over plain HTTP on a name that is not localhost the page says Talk needs HTTPS",
              lambda: insecure_talk_check(run, daemon, base, browsers, directory))


if __name__ == "__main__":
    sys.exit(main())
