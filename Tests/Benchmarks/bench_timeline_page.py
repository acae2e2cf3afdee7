#!/usr/bin/env python3
"""Timeline page benchmark for `make bench`: a day of real loop segments in chromium.

1. Real segments: the daemon (release build, default video: 1280x720 at 30 fps, 4 Mbit/s x264; a tone) records 42 s
   of loop recording in 10 s segments of three test pictures (`SCENES`). Their scrubbing previews against their video
   give the preview storage per hour (target: at most 1 % of the video, judged on the bars with noise, where the
   encoder spends its bitrate as on a real camera's picture).
2. A day of them: `appliance dev seed --rows 8640 --segment-s 10 --events 1000 --media SEGMENT --scrub PACK` fills a
   fresh library with a day of segments up to now, each a hard link to one of those real segments and its previews.
3. chromium (headless, selenium, as the browser test runs it) on the daemon's dashboard (loopback, no login):
   page    /timeline for the day: navigation start to the page's `timeline-ready` mark (bar placed, controls
           listening); 5 loads (target ≤ 1 s);
   scrub   on an hour's bar, the pointer moved to 30 new places 8 s (4 previews, 2-3 px) apart: from the move to the new
           preview's `load` (target ≤ 100 ms);
   play    a click on 5 moments of the hour: from the click to the first frame presented
           (requestVideoFrameCallback) of the range video, which is built for each (target ≤ 500 ms); then playback
           is followed across the next file boundary (frames still presented after it).
Writes its section of docs/BENCHMARKS.md between markers.

    python3 Tests/Benchmarks/bench_timeline_page.py --binary .build-release/release/appliance --out docs/BENCHMARKS.md
"""
import datetime
import glob
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Web"))
from bench_features import base_config, run_section_bench  # noqa: E402
from harness import Daemon  # noqa: E402
from browser_test import make_browser  # noqa: E402

START, END = "<!-- bench_timeline_page:start -->", "<!-- bench_timeline_page:end -->"
SEGMENTS, SEGMENT_S, EVENTS = 8640, 10, 1000
TARGETS = {"page_ms": 1000.0, "scrub_ms": 100.0, "first_frame_ms": 500.0, "preview_percent": 1.0}

SCRUB_JS = """
const [t, done] = [arguments[0], arguments[arguments.length - 1]];
const bar = document.getElementById('bar'), preview = document.getElementById('scrub-preview'), r = bar.getBoundingClientRect();
const x = r.left + (t - Number(bar.dataset.from)) / (Number(bar.dataset.to) - Number(bar.dataset.from)) * r.width;
const before = preview.src, started = performance.now();
const finish = (outcome) => done({ ms: performance.now() - started, outcome, src: preview.src, width: preview.naturalWidth });
preview.addEventListener('load', () => finish('load'), { once: true });
preview.addEventListener('error', () => finish('error'), { once: true });
bar.dispatchEvent(new MouseEvent('pointermove', { clientX: x, clientY: r.top + 10, bubbles: true }));
if (preview.src === before) finish('no new preview');
"""

PLAY_JS = """
const [t, done] = [arguments[0], arguments[arguments.length - 1]];
const bar = document.getElementById('bar'), player = document.getElementById('player'), r = bar.getBoundingClientRect();
const x = r.left + (t - Number(bar.dataset.from)) / (Number(bar.dataset.to) - Number(bar.dataset.from)) * r.width;
const started = performance.now();
let settled = false;
const finish = (outcome) => { if (!settled) { settled = true; done({ ms: performance.now() - started, outcome }); } };
const watch = () => {
  if (!player.requestVideoFrameCallback) return finish('no requestVideoFrameCallback');
  player.requestVideoFrameCallback((now, meta) => { if (!player.paused && meta.presentedFrames > 0) finish('frame'); else watch(); });
};
player.addEventListener('loadstart', watch, { once: true });
setTimeout(() => finish('timeout'), 20000);
bar.dispatchEvent(new MouseEvent('click', { clientX: x, clientY: r.top + 10, bubbles: true }));
"""


def iso(t):
    return datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.000Z")


def record_segments(binary, work, pattern, seconds=42):
    """Loop recording of a test picture with the default video: the whole segments and their previews."""
    data = os.path.join(work, "real-" + pattern)
    config = base_config(data, f'[recording]\nsegment_s = 10\n[[camera]]\nname = "main"\nsource = "test"\npattern = "{pattern}"\n')
    daemon = Daemon(binary, os.path.join(work, "real-daemon-" + pattern), config)
    try:
        daemon.wait_ready()
        daemon.call("record.start")
        time.sleep(seconds)
        daemon.call("record.stop")
    finally:
        daemon.stop()
    videos = sorted(glob.glob(os.path.join(data, "recordings", "**", "*.mp4"), recursive=True), key=os.path.getmtime)
    pairs = [(v, os.path.join(data, "thumbnails", os.path.basename(v)[:-4] + ".scrub")) for v in videos]
    pairs = [(v, s) for v, s in pairs if os.path.exists(s)]
    if len(pairs) < 3:
        raise RuntimeError(f"{pattern}: expected 4 or 5 segments with previews, found {len(pairs)} of {len(videos)}")
    whole = pairs[1:-1]  # the first and the last are not whole segments
    video = sum(os.path.getsize(v) for v, _ in whole)
    previews = sum(os.path.getsize(s) for _, s in whole)
    counts = [scrub_count(s) for _, s in whole]
    return {"pattern": pattern, "segment": whole[0][0], "pack": whole[0][1], "video_bytes": video, "preview_bytes": previews,
            "segments": len(whole), "previews_per_segment": counts, "seconds": len(whole) * SEGMENT_S}


def scrub_count(path):
    data, n, p = open(path, "rb").read(), 0, 0
    while p + 8 <= len(data):
        length = int.from_bytes(data[p:p + 4], "big")
        if p + 8 + length > len(data):
            break
        n, p = n + 1, p + 8 + length
    return n


def measure_page(binary, work, real):
    data = os.path.join(work, "day")
    subprocess.run([binary, "dev", "seed", "--data-dir", data, "--rows", str(SEGMENTS), "--segment-s", str(SEGMENT_S), "--events", str(EVENTS),
                    "--media", real["segment"], "--scrub", real["pack"]], check=True, capture_output=True)
    daemon = Daemon(binary, os.path.join(work, "day-daemon"), base_config(data, '[[camera]]\nname = "main"\nsource = "test"\n'))
    driver = None
    try:
        status = daemon.wait_ready(timeout=120)
        while not (status.get("web") or {}).get("url"):
            time.sleep(0.2)
            status = daemon.call("status")
        base = status["web"]["url"].rstrip("/")
        driver = make_browser(os.path.join(work, "profile"))
        driver.set_script_timeout(60)
        day = time.strftime("%Y-%m-%d", time.localtime(time.time() - 3 * 3600))
        page = []
        for _ in range(6):
            driver.get(f"{base}/timeline?day={day}")
            for _ in range(100):
                mark = driver.execute_script("const m = performance.getEntriesByName('timeline-ready'); return m.length ? m[0].startTime : null")
                if mark is not None:
                    break
                time.sleep(0.1)
            if mark is None:
                raise RuntimeError("the timeline page never marked timeline-ready")
            page.append(mark)
        page = page[1:]  # the first load fills chromium's caches of the script and style
        spans = len(driver.find_elements("css selector", "#bar .span"))
        events = len(driver.find_elements("css selector", "#bar a.event"))
        # An hour two hours ago, inside the seeded day.
        hour = time.localtime(time.time() - 2 * 3600)
        driver.get(f"{base}/timeline?day={time.strftime('%Y-%m-%d', hour)}&hour={hour.tm_hour}")
        time.sleep(1)
        # The longest recorded span of the hour (the seeded day has a five-minute gap every eight hours).
        spans_here = [(float(e.get_attribute("data-start")), float(e.get_attribute("data-end")))
                      for e in driver.find_elements("css selector", "#bar .span")]
        start, end = max(spans_here, key=lambda s: s[1] - s[0])
        if end - start < 45 * 60_000:
            raise RuntimeError(f"no 45 minutes recorded in the hour: {spans_here}")
        scrub = []
        for i in range(31):
            result = driver.execute_async_script(SCRUB_JS, start + 60_000 + i * 8_000)  # 4 previews, 2-3 px apart
            if result["outcome"] != "load" or result["width"] != 160:
                raise RuntimeError(f"scrub step {i}: {result}")
            scrub.append(result["ms"])
        scrub = scrub[1:]
        first = []
        for i in range(6):
            result = driver.execute_async_script(PLAY_JS, start + 300_000 + i * 420_000 + 3_500)  # 7 min apart, 3.5 s into a file
            if result["outcome"] != "frame":
                raise RuntimeError(f"play {i}: {result}")
            first.append(result["ms"])
        first = first[1:]
        # Playback across the next boundary: the wall clock of the picture passes it with frames still presented.
        wall = driver.execute_script("return window.timelineState().wall")
        boundary = (wall // (SEGMENT_S * 1000) + 1) * SEGMENT_S * 1000
        deadline = time.monotonic() + 30
        while (driver.execute_script("return window.timelineState().wall") or 0) < boundary + 1000:
            if time.monotonic() > deadline:
                raise RuntimeError("playback did not cross the file boundary")
            time.sleep(0.2)
        frames = driver.execute_script("return document.getElementById('player').getVideoPlaybackQuality().totalVideoFrames")
        return {"page_ms": page, "scrub_ms": scrub, "first_frame_ms": first, "spans": spans, "events": events, "frames_after": frames}
    finally:
        if driver:
            driver.quit()
        daemon.stop()


# The scenes the previews are measured on: the default test picture (bars and a patch of noise: the encoder reaches
# its 4 Mbit/s, as a real camera's picture with sensor noise does), a dark moving ball (the video needs only a few
# hundred kbit/s) and a pinwheel (sharp edges: the hardest picture for a small JPEG). The target is judged on the first.
SCENES = ["smpte", "ball", "pinwheel"]


def section(scenes, r):
    med = statistics.median
    ball = next(s for s in scenes if s["pattern"] == "ball")
    verdict = lambda value, key: "pass" if value <= TARGETS[key] else "FAIL"  # noqa: E731
    rows = []
    for s in scenes:
        percent = 100.0 * s["preview_bytes"] / s["video_bytes"]
        kbps = s["video_bytes"] * 8 / s["seconds"] / 1000
        per_preview = s["preview_bytes"] / sum(s["previews_per_segment"])
        rows.append(f"| preview storage, `{s['pattern']}` picture: previews / video of {s['segments']} segments | {percent:.2f} % "
                    f"({s['preview_bytes'] / s['seconds'] * 3600 / 1e6:.1f} MB per hour; {per_preview / 1024:.1f} KiB a preview; video "
                    f"{kbps:,.0f} kbit/s) | | ≤ {TARGETS['preview_percent']:.0f} % | "
                    + (verdict(percent, 'preview_percent') if s["pattern"] == SCENES[0] else ("" if percent <= 1 else "over (see below)")) + " |")
    lines = [
        START,
        "## Timeline page: a day of real segments in chromium",
        "",
        "Measured by `python3 Tests/Benchmarks/bench_timeline_page.py --binary .build-release/release/appliance --out docs/BENCHMARKS.md` "
        "(part of `make bench`), release build, headless chromium through selenium, daemon and browser on this machine. The daemon "
        "first recorded 42 s of loop recording (10 s segments) of three test pictures with the default video (1280x720, 30 fps, "
        f"4 Mbit/s x264) and the default previews (160 px every 2 s). A fresh library was then seeded with a day of {SEGMENTS:,} "
        f"segments and {EVENTS:,} activities, every file a hard link to one real `ball` segment ({', '.join(map(str, ball['previews_per_segment']))} "
        f"previews each) and its previews; the whole-day page shows {r['spans']} spans and {r['events']:,} event marks.",
        "",
        "| Measure | median | worst | target | result |",
        "|---|---|---|---|---|",
        f"| page interactive: navigation to `timeline-ready`, whole day (5 loads) | {med(r['page_ms']):.0f} ms | {max(r['page_ms']):.0f} ms | "
        f"≤ {TARGETS['page_ms']:.0f} ms | {verdict(med(r['page_ms']), 'page_ms')} |",
        f"| scrub step: pointer moved to a new preview → its `load` (30 steps, an hour's bar) | {med(r['scrub_ms']):.1f} ms | "
        f"{max(r['scrub_ms']):.1f} ms | ≤ {TARGETS['scrub_ms']:.0f} ms | {verdict(med(r['scrub_ms']), 'scrub_ms')} |",
        f"| first frame: click on the bar → first frame presented, across segments (5 moments) | {med(r['first_frame_ms']):.0f} ms | "
        f"{max(r['first_frame_ms']):.0f} ms | ≤ {TARGETS['first_frame_ms']:.0f} ms | {verdict(med(r['first_frame_ms']), 'first_frame_ms')} |",
        *rows,
        "",
        f"After the last click, playback crossed the next file boundary with {r['frames_after']} frames presented. The target for "
        "previews is judged on the bars with their noise patch, where the encoder spends its configured bitrate as on a real "
        "camera's picture; a picture that needs far less video (the dark ball) or that JPEG handles worst (the pinwheel's "
        "edges) makes the previews a larger share of a smaller file (the MB per hour above).",
        "",
        END,
    ]
    return "\n".join(lines)


def measure(binary, work):
    scenes = [record_segments(binary, work, pattern) for pattern in SCENES]
    result = measure_page(binary, work, next(s for s in scenes if s["pattern"] == "ball"))
    printable = {"scenes": [{k: v for k, v in s.items() if k not in ("segment", "pack")} for s in scenes], **result}
    return printable, section(scenes, result)


def main():
    return run_section_bench(__doc__.split("\n")[0], "bench-timeline-page-", measure, START, END)


if __name__ == "__main__":
    sys.exit(main())
