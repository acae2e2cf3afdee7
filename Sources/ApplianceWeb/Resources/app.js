"use strict";
const $ = (s) => document.querySelector(s);
const csrf = () => (document.querySelector('meta[name="csrf"]') || {}).content || "";
function say(text) { const m = $("#message"); if (m) m.textContent = text; }
async function call(method, path, body) {
  const response = await fetch(path, { method, credentials: "same-origin",
    headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf() }, body: body === undefined ? undefined : JSON.stringify(body) });
  const data = await response.json().catch(() => ({}));
  if (!response.ok) { const e = new Error((data.error && data.error.message) || response.statusText); e.status = response.status; throw e; }
  return data;
}
const command = (name, args) => call("POST", "/api/commands/" + name, args || {});
function clock(ms) {
  const s = Math.max(0, Math.floor(ms / 1000)), h = Math.floor(s / 3600), m = Math.floor(s / 60) % 60, r = s % 60;
  const two = (n) => String(n).padStart(2, "0");
  return h > 0 ? `${h}:${two(m)}:${two(r)}` : `${m}:${two(r)}`;
}
function localTimes() {
  for (const t of document.querySelectorAll("time[datetime]")) {
    const d = new Date(t.getAttribute("datetime"));
    if (!isNaN(d)) t.textContent = d.toLocaleString([], { dateStyle: "medium", timeStyle: "short" });
  }
}

function livePage() {
  const button = $("#record"), elapsed = $("#elapsed"), camera = $("#camera");
  let startedAt = null;
  const show = (recording, elapsedMs) => {
    button.classList.toggle("on", recording);
    button.textContent = recording ? "Stop" : "Record";
    button.dataset.state = recording ? "recording" : "idle";
    startedAt = recording ? Date.now() - (elapsedMs || 0) : null;
    elapsed.textContent = clock(elapsedMs || 0);
    elapsed.dataset.elapsedMs = String(elapsedMs || 0);
  };
  const refresh = async () => {
    try {
      const s = await call("GET", "/api/status");
      show(s.state === "recording", s.recording ? s.recording.elapsed_ms : 0);
      if (s.active_camera) camera.value = s.active_camera;
      const parts = [];
      if (s.capacity) { parts.push("free " + (s.capacity.free_bytes / 1e9).toFixed(1) + " GB");
        if (s.capacity.wraps_in) parts.push("wraps in " + s.capacity.wraps_in); }
      if (s.storage_full) parts.push("storage full: " + s.storage_full);
      parts.push("dropped " + (s.recording ? s.recording.dropped_frames : 0));
      if (s.recording && s.recording.av_offset_ms !== undefined) parts.push("A/V " + Math.round(s.recording.av_offset_ms) + " ms");
      try { const b = await call("GET", "/api/backup"); if (b.enabled) parts.push("backup queue " + b.counts.pending + (b.paused ? " (paused)" : "")); } catch (e) {}
      $("#health").textContent = parts.join(" · ");
      const r = s.rtsp, line = $("#rtsp");
      if (r && line) line.textContent = r.url
        ? "RTSP " + r.url + (r.authentication === "digest" ? " (your name and password)" : "") + " · " + r.clients + (r.clients === 1 ? " client" : " clients")
        : "RTSP " + r.state + (r.error ? ": " + r.error : "");
    } catch (e) { say(e.message); }
  };
  show(button.dataset.state === "recording", Number(elapsed.dataset.elapsedMs));
  setInterval(() => {
    if (startedAt !== null) { const ms = Date.now() - startedAt; elapsed.textContent = clock(ms); elapsed.dataset.elapsedMs = String(ms); }
  }, 250);
  setInterval(refresh, 5000);
  meters();
  button.addEventListener("click", async () => {
    button.disabled = true;
    try { const r = await command("record.toggle"); say(r.stopped ? "Saved " + r.stopped.title : "Recording"); await refresh(); }
    catch (e) { say(e.message); } finally { button.disabled = false; }
  });
  camera.addEventListener("change", async () => {
    try { await command("switch", { camera: camera.value }); say("Camera " + camera.value); } catch (e) { say(e.message); refresh(); }
  });
  $("#snapshot").addEventListener("click", async () => {
    try { const r = await command("snapshot"); const p = $("#last-snapshot"); p.innerHTML = "";
      const a = document.createElement("a"); a.href = "/media/snapshots/" + r.id; a.textContent = "Snapshot " + r.width + "×" + r.height;
      a.id = "snapshot-link"; p.appendChild(a); } catch (e) { say(e.message); }
  });
  $("#protect").addEventListener("click", async () => {
    try { const r = await command("protect"); say("Protected " + r.locked.length + " clip(s)"); } catch (e) { say(e.message); }
  });
  const events = new EventSource("/api/events");
  events.addEventListener("recording_started", () => show(true, 0));
  events.addEventListener("recording_stopped", () => show(false, 0));
  events.addEventListener("camera_switched", (m) => { try { camera.value = JSON.parse(m.data).data.to; } catch (e) {} });
  events.addEventListener("storage_full", refresh);
  events.onopen = refresh;
  liveView();
}

// The microphone's level and motion, once a second (status carries both; the page shows them only when the
// device has them).
function meters() {
  const level = $("#level"), text = $("#level-text"), motion = $("#motion-state");
  if (!level && !motion) return;
  const update = async () => {
    if (document.hidden) return;
    try {
      const s = await call("GET", "/api/status");
      if (level && s.sound && typeof s.sound.level_db === "number") {
        level.value = Math.max(-60, s.sound.level_db); text.textContent = Math.round(s.sound.level_db) + " dBFS";
      }
      if (motion && s.motion) { motion.classList.toggle("on", s.motion.active); motion.textContent = s.motion.active ? "motion" : "no motion"; }
    } catch (e) {}
  };
  setInterval(update, 1000);
}

// The live picture: WebRTC (WHEP) when the browser and the device can, MJPEG otherwise or when WebRTC fails.
// The MJPEG picture shows until WebRTC plays; sound is one click away (browsers block autoplay with sound). The
// session starts without audio (?sound=off) and the click asks for it: a viewer who never listens costs the
// device no Opus encoding and no audio packets. With several channels the page is a grid, a tile per channel
// (data-channel), each its own session; the Sound and Talk buttons are the first tile's.
function liveView() {
  const tiles = [...document.querySelectorAll(".live .picture")];
  window.livePeers = {};
  tiles.forEach((tile, i) => liveTile(tile, i === 0 ? { sound: $("#sound"), talk: $("#talk") } : {}));
}

function liveTile(tile, { sound, talk }) {
  const img = tile.querySelector("img"), video = tile.querySelector("video"), channel = tile.dataset.channel;
  const first = !!sound, query = channel ? "channel=" + encodeURIComponent(channel) : "";
  const mjpegURL = () => "/live.mjpeg?" + (query ? query + "&" : "") + Date.now();
  // The page's state is the first tile's; each tile says its own.
  const mode = (live, why) => {
    tile.dataset.live = live; tile.dataset.liveWhy = why || "";
    if (first) { document.body.dataset.live = live; document.body.dataset.liveWhy = why || ""; }
  };
  let webrtc = null, leaving = false;
  img.addEventListener("error", () => setTimeout(() => { if (!webrtc) img.src = mjpegURL(); }, 2000));
  const end = () => {
    if (!webrtc) return;
    webrtc.pc.close();
    if (webrtc.location) fetch(webrtc.location, { method: "DELETE", credentials: "same-origin", headers: { "X-CSRF-Token": csrf() }, keepalive: true }).catch(() => {});
    webrtc = null;
  };
  const mjpeg = (why) => {
    end();
    video.hidden = true; if (sound) sound.hidden = true; img.hidden = false;
    if (!img.getAttribute("src")) img.src = mjpegURL();
    mode("mjpeg", why);
  };
  const start = async () => {
    if (!window.RTCPeerConnection || video.dataset.webrtc !== "on") return mjpeg("WebRTC is off");
    const pc = new RTCPeerConnection();
    webrtc = { pc, location: null };
    // for a look at getStats() from the console (and the streaming benchmark)
    if (first) window.livePeer = pc;
    window.livePeers[channel || ""] = pc;
    pc.addTransceiver("video", { direction: "recvonly" });
    // With a speaker on the device (and an admin watching) the sound goes both ways: the browser's microphone is
    // put on this sender only while Talk is held (replaceTrack: no renegotiation), so nothing is sent otherwise.
    webrtc.audio = pc.addTransceiver("audio", { direction: talk ? "sendrecv" : "recvonly" });
    const stream = new MediaStream();
    pc.ontrack = (e) => { stream.addTrack(e.track); if (e.track.kind === "audio" && sound) sound.hidden = false; };
    try {
      await pc.setLocalDescription(await pc.createOffer());
      await new Promise((done) => {
        if (pc.iceGatheringState === "complete") return done();
        pc.addEventListener("icegatheringstatechange", () => { if (pc.iceGatheringState === "complete") done(); });
        setTimeout(done, 2000);
      });
      const r = await fetch("/api/whep?sound=off" + (query ? "&" + query : ""), { method: "POST", credentials: "same-origin",
        headers: { "Content-Type": "application/sdp", "X-CSRF-Token": csrf() }, body: pc.localDescription.sdp });
      if (r.status !== 201) throw new Error("WHEP answered " + r.status);
      webrtc.location = r.headers.get("Location");
      if (leaving) return end();
      await pc.setRemoteDescription({ type: "answer", sdp: await r.text() });
      pc.addEventListener("connectionstatechange", () => { if (["failed", "closed"].includes(pc.connectionState)) mjpeg("connection " + pc.connectionState); });
      // Shown at once (a hidden video is not played): black until its first frame, MJPEG again if none comes.
      video.srcObject = stream;
      video.hidden = false; img.hidden = true;
      const playing = await new Promise((done) => { video.addEventListener("playing", () => done(true), { once: true }); setTimeout(() => done(false), 8000); });
      if (!playing) throw new Error("no picture over WebRTC");
      img.removeAttribute("src");
      mode("webrtc");
      if (talk && webrtc.audio.currentDirection === "sendrecv") talk.hidden = false;
    } catch (e) { mjpeg(e.message); }
  };
  if (sound) sound.addEventListener("click", () => {
    video.muted = !video.muted;
    sound.textContent = video.muted ? "Sound on" : "Sound off";
    if (!video.muted) video.play().catch(() => {});
    if (webrtc && webrtc.location) fetch(webrtc.location + "/sound", { method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf() }, body: JSON.stringify({ on: !video.muted }) }).catch(() => {});
  });
  window.addEventListener("pagehide", () => { leaving = true; end(); });
  if (talk) talkButton(talk, () => webrtc);
  start();
}

// Talk: hold the button (or the T key) and the browser's microphone plays on the device's speaker. The device
// takes one talker at a time and says why it refuses; browsers give the microphone only over HTTPS or on
// localhost, which the page says rather than failing silently.
function talkButton(talk, session) {
  let mic = null, wanted = false, active = false;
  const post = (on) => fetch(session().location + "/talk", { method: "POST", credentials: "same-origin",
    headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf() }, body: JSON.stringify({ on }) });
  const off = async (force) => {
    if (!wanted && !force) return;
    wanted = false; talk.classList.remove("on"); document.body.dataset.talk = "off";
    const s = session();
    if (s && s.audio) s.audio.sender.replaceTrack(null).catch(() => {});
    if (active && s && s.location) { active = false; post(false).catch(() => {}); say(""); }
  };
  const on = async () => {
    if (wanted || !session() || !session().location) return;
    wanted = true; talk.classList.add("on");
    try {
      if (!window.isSecureContext || !navigator.mediaDevices) throw new Error("Talk needs the microphone, which browsers give only over HTTPS (or on localhost)");
      if (!mic) mic = (await navigator.mediaDevices.getUserMedia({ audio: { echoCancellation: true, noiseSuppression: false, autoGainControl: false } })).getAudioTracks()[0];
      if (!wanted) return;
      const r = await post(true);
      if (!r.ok) { const data = await r.json().catch(() => ({})); throw new Error((data.error && data.error.message) || "Talk refused (" + r.status + ")"); }
      active = true;
      if (!wanted) return off(true);
      await session().audio.sender.replaceTrack(mic);
      document.body.dataset.talk = "on";
      say("Talking: release to stop");
    } catch (e) { wanted = false; talk.classList.remove("on"); say(e.message); }
  };
  talk.addEventListener("pointerdown", (e) => { e.preventDefault(); on(); });
  for (const name of ["pointerup", "pointerleave", "pointercancel"]) talk.addEventListener(name, () => off(false));
  const typing = (e) => ["INPUT", "SELECT", "TEXTAREA"].includes((e.target || {}).tagName);
  document.addEventListener("keydown", (e) => { if ((e.key === "t" || e.key === "T") && !e.repeat && !typing(e) && !talk.hidden) on(); });
  document.addEventListener("keyup", (e) => { if (e.key === "t" || e.key === "T") off(false); });
}

// The timeline's bar: each span, lock, event and tick placed by its time; the time under the pointer shown. A
// click (or a tap) plays that moment in the page's player: one video from there to the end of the recorded span
// (an hour at most; the next part follows when it ends), whose X-Video-Pieces header maps the player's clock to
// the wall clock across the files. Buttons and keys: space/k play or pause, ←/→ 10 s, n/p next or previous event.
// With several channels (data-lanes) the bar has a row per channel: a click plays the row's channel.
function timelinePage() {
  const bar = $("#bar"), from = Number(bar.dataset.from), to = Number(bar.dataset.to), cursor = $("#cursor"), label = $("#bar-time");
  const player = $("#player"), playhead = $("#playhead"), playingAt = $("#playing-at");
  const lanes = bar.dataset.lanes ? bar.dataset.lanes.split(",") : [];
  const lane = (el) => {
    if (el.dataset.lane === undefined || !lanes.length) return;
    el.style.top = (100 * Number(el.dataset.lane) / lanes.length) + "%"; el.style.height = (100 / lanes.length) + "%";
  };
  const place = (el) => {
    const start = Number(el.dataset.start), end = el.dataset.end ? Number(el.dataset.end) : null;
    el.style.left = (100 * (start - from) / (to - from)) + "%";
    if (end !== null) el.style.width = (100 * (end - start) / (to - from)) + "%";
    lane(el);
  };
  for (const el of document.querySelectorAll("#bar [data-start], #ticks [data-start]")) place(el);
  for (const el of bar.querySelectorAll(".lane-label")) lane(el);
  const spans = [...bar.querySelectorAll(".span")]
    .map((el) => ({ start: Number(el.dataset.start), end: Number(el.dataset.end), channel: el.dataset.channel || null }))
    .sort((a, b) => a.start - b.start);
  let channel = lanes.length ? lanes[0] : null;  // the row played, and whose previews are shown
  const laneAt = (clientY) => {
    if (!lanes.length) return null;
    const r = bar.getBoundingClientRect();
    return lanes[Math.min(lanes.length - 1, Math.max(0, Math.floor((clientY - r.top) / r.height * lanes.length)))];
  };
  const ofChannel = (c) => (c ? "&channel=" + encodeURIComponent(c) : "");
  const mine = (s) => !lanes.length || s.channel === channel;
  const events = [...bar.querySelectorAll("a.event")].map((el) => Number(el.dataset.start)).sort((a, b) => a - b);
  const timeAt = (clientX) => {
    const r = bar.getBoundingClientRect();
    return from + Math.min(1, Math.max(0, (clientX - r.left) / r.width)) * (to - from);
  };
  // The preview under the pointer: one request at a time, for the step of the previews the pointer is in (so
  // moving within a step asks nothing, and the browser's cache answers steps seen before).
  const preview = $("#scrub-preview"), every = Number(bar.dataset.scrubEvery || 0) * 1000;
  let loading = false, wanted = null, shownFor = null;
  const loadPreview = () => {
    if (loading || wanted === null || (shownFor && wanted.at === shownFor.at && wanted.channel === shownFor.channel)) return;
    loading = true; const asked = wanted; shownFor = asked;
    preview.onload = () => { loading = false; preview.hidden = false; loadPreview(); };
    preview.onerror = () => { loading = false; preview.hidden = true; loadPreview(); };
    preview.src = "/api/timeline/scrub.jpg?at=" + new Date(asked.at).toISOString() + ofChannel(asked.channel);
  };
  const show = (clientX, clientY) => {
    const t = timeAt(clientX), row = laneAt(clientY);
    cursor.hidden = false; cursor.style.left = (100 * (t - from) / (to - from)) + "%";
    label.textContent = new Date(t).toLocaleTimeString();
    bar.dataset.at = new Date(t).toISOString();
    if (row) bar.dataset.channel = row;
    if (every > 0 && spans.some((s) => s.start <= t && t < s.end && (!row || s.channel === row))) {
      const r = bar.getBoundingClientRect();
      preview.style.left = Math.min(r.width - 80, Math.max(80, clientX - r.left)) + "px";
      wanted = { at: Math.floor(t / every) * every, channel: row }; loadPreview();
    } else { wanted = null; preview.hidden = true; }
  };
  let video = null;  // { end, pieces: [{ offset (s), start (ms) }] } of what the player holds
  const wallAt = (seconds) => {
    if (!video || !video.pieces.length) return null;
    let piece = video.pieces[0];
    for (const p of video.pieces) if (p.offset <= seconds) piece = p;
    return piece.start + (seconds - piece.offset) * 1000;
  };
  const offsetAt = (ms) => {
    if (!video) return null;
    const pieces = video.pieces;
    for (let i = 0; i < pieces.length; i++) {
      const length = i + 1 < pieces.length ? pieces[i + 1].offset - pieces[i].offset : (player.duration || 0) - pieces[i].offset;
      if (ms >= pieces[i].start && ms < pieces[i].start + length * 1000) return pieces[i].offset + (ms - pieces[i].start) / 1000;
    }
    return null;
  };
  const now = () => (video && wallAt(player.currentTime)) || (bar.dataset.at ? Date.parse(bar.dataset.at) : from);
  async function playAt(ms, row) {
    if (row) channel = row;
    const span = spans.find((s) => s.end > ms + 100 && mine(s));
    if (!span) { say("Nothing recorded after " + new Date(ms).toLocaleTimeString() + " on this page"); return; }
    const start = Math.max(ms, span.start), end = Math.min(span.end, start + 3600e3);
    const url = "/api/timeline/video.mp4?start=" + new Date(start).toISOString() + "&end=" + new Date(end).toISOString()
      + ofChannel(lanes.length ? channel : null);
    const head = await fetch(url, { method: "HEAD", credentials: "same-origin" });
    if (!head.ok) { say("Cannot play " + new Date(start).toLocaleTimeString() + " (" + head.status + ")"); return; }
    const pieces = (head.headers.get("X-Video-Pieces") || "").split(",").filter(Boolean)
      .map((p) => { const at = p.indexOf("@"); return { offset: Number(p.slice(0, at)), start: Date.parse(p.slice(at + 1)) }; });
    video = { end, pieces, channel };
    say("");
    $("#timeline-player").hidden = false;
    for (const old of player.querySelectorAll("track")) old.remove();
    const track = document.createElement("track");  // the previews of this video, for a player's seek bar
    Object.assign(track, { kind: "metadata", label: "thumbnails", src: url.replace("/video.mp4", "/scrub.vtt") });
    player.append(track);
    player.src = url;
    const offset = pieces.length ? Math.max(0, (start - pieces[0].start) / 1000) : 0;
    player.addEventListener("loadedmetadata", () => { player.currentTime = offset; player.play().catch(() => {}); }, { once: true });
  }
  const seek = (seconds) => {
    const target = now() + seconds * 1000, offset = offsetAt(target);
    if (offset !== null) player.currentTime = offset; else playAt(target);
  };
  const toggle = () => { if (!video) playAt(now()); else if (player.paused) player.play().catch(() => {}); else player.pause(); };
  const nextEvent = () => { const t = events.find((e) => e > now() + 1000); if (t === undefined) say("No later event on this page"); else playAt(t); };
  const previousEvent = () => { const t = events.filter((e) => e < now() - 2000).pop(); if (t === undefined) say("No earlier event on this page"); else playAt(t); };
  player.addEventListener("timeupdate", () => {
    const wall = wallAt(player.currentTime);
    if (wall === null) return;
    playhead.hidden = !(wall >= from && wall <= to); playhead.style.left = (100 * (wall - from) / (to - from)) + "%";
    playingAt.textContent = "Playing " + new Date(wall).toLocaleTimeString();
  });
  player.addEventListener("play", () => { $("#play-pause").textContent = "Pause"; });
  player.addEventListener("pause", () => { $("#play-pause").textContent = "Play"; });
  player.addEventListener("ended", () => { if (video && spans.some((s) => s.end > video.end + 100 && mine(s))) playAt(video.end); });
  bar.addEventListener("pointermove", (e) => show(e.clientX, e.clientY));
  bar.addEventListener("pointerleave", () => { cursor.hidden = true; wanted = null; preview.hidden = true; });
  bar.addEventListener("click", (e) => {
    const mark = e.target.closest("a.event");
    e.preventDefault();
    if (mark) { playAt(Number(mark.dataset.start), mark.dataset.channel); return; }
    show(e.clientX, e.clientY);
    playAt(Date.parse(bar.dataset.at), laneAt(e.clientY));
  });
  $("#play-pause").addEventListener("click", toggle);
  $("#back-10").addEventListener("click", () => seek(-10));
  $("#forward-10").addEventListener("click", () => seek(10));
  $("#next-event").addEventListener("click", nextEvent);
  $("#previous-event").addEventListener("click", previousEvent);
  document.addEventListener("keydown", (e) => {
    if (e.target.closest("input, select, textarea") || e.altKey || e.ctrlKey || e.metaKey) return;
    const actions = { " ": toggle, k: toggle, ArrowLeft: () => seek(-10), j: () => seek(-10), ArrowRight: () => seek(10), l: () => seek(10),
                      n: nextEvent, p: previousEvent };
    const action = actions[e.key];
    if (action) { e.preventDefault(); action(); }
  });
  window.timelineState = () => ({ wall: video ? wallAt(player.currentTime) : null, pieces: video ? video.pieces.length : 0,
                                  channel: video ? video.channel : null });
  performance.mark("timeline-ready");  // the bar placed and every control listening (measured by bench_timeline_page.py)
}

function shareItem(link) {
  const li = document.createElement("li"); li.dataset.id = link.id;
  const a = document.createElement("a"); a.className = "share-link"; a.href = link.url; a.textContent = location.origin + link.url;
  const until = document.createElement("span"); until.className = "expires"; until.textContent = " until " + new Date(link.expires_at).toLocaleString();
  const revoke = document.createElement("button"); revoke.className = "revoke"; revoke.textContent = "Revoke";
  li.append(a, until, " ", revoke); return li;
}
function shareLists() {
  document.addEventListener("click", async (event) => {
    const button = event.target.closest("button.revoke"); if (!button) return;
    const li = button.closest("li");
    try { await call("DELETE", "/api/shares/" + encodeURIComponent(li.dataset.id)); li.remove(); say("Link revoked"); } catch (e) { say(e.message); }
  });
}

function accountsSection() {
  const users = $("#users"); if (!users) return;
  const reload = (text) => { say(text); setTimeout(() => location.reload(), 600); };
  $("#user-add").addEventListener("submit", async (event) => {
    event.preventDefault();
    try { await command("user.add", { name: $("#user-add-name").value, role: $("#user-add-role").value, password: $("#user-add-password").value });
      reload("Account added"); } catch (e) { say(e.message); }
  });
  $("#user-passwd").addEventListener("submit", async (event) => {
    event.preventDefault();
    try { await command("user.passwd", { name: $("#user-passwd-name").value, password: $("#user-passwd-password").value });
      $("#user-passwd-password").value = ""; say("Password set; that account's sessions have ended"); } catch (e) { say(e.message); }
  });
  users.addEventListener("change", async (event) => {
    const select = event.target.closest("select.user-role"); if (!select) return;
    const name = select.closest("tr").dataset.user;
    try { await command("user.role", { name, role: select.value }); say(name + " is now a " + select.value); } catch (e) { say(e.message); location.reload(); }
  });
  users.addEventListener("click", async (event) => {
    const row = event.target.closest("tr"); if (!row) return;
    const name = row.dataset.user;
    if (event.target.closest("button.user-token")) {
      try { const t = await command("user.token", { name });
        $("#user-token-name").textContent = name; $("#user-token").textContent = t.token; $("#user-token-shown").hidden = false;
        const count = row.querySelector(".user-tokens"); count.textContent = String(Number(count.textContent) + 1); } catch (e) { say(e.message); }
    }
    if (event.target.closest("button.user-untoken")) {
      try { await command("user.revoke_tokens", { name }); row.querySelector(".user-tokens").textContent = "0"; say("API tokens of " + name + " revoked"); }
      catch (e) { say(e.message); }
    }
    if (event.target.closest("button.user-remove")) {
      if (!confirm("Remove " + name + ", its API tokens and its sessions?")) return;
      try { await command("user.remove", { name }); row.remove(); say("Removed " + name); } catch (e) { say(e.message); }
    }
  });
  const sessions = $("#sessions");
  if (sessions) sessions.addEventListener("click", async (event) => {
    const button = event.target.closest("button.session-revoke"); if (!button) return;
    const li = button.closest("li");
    try { await call("DELETE", "/api/sessions/" + encodeURIComponent(li.dataset.session)); li.remove(); say("Logged out"); } catch (e) { say(e.message); }
  });
}

function clipPage() {
  const id = $(".clip").dataset.id, player = $("#player");
  $("#restart").addEventListener("click", () => { player.currentTime = 0; player.play(); });
  // From an event's "play": start where it began (the #t fragment does the same where the browser reads it).
  const start = Number(player.dataset.start);
  if (start > 0) {
    const seek = () => { if (Math.abs(player.currentTime - start) > 0.5) player.currentTime = start; };
    if (player.readyState >= 1) seek(); else player.addEventListener("loadedmetadata", seek, { once: true });
  }
  $("#rename-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    try { const r = await call("POST", `/api/recordings/${id}/rename`, { title: $("#title-input").value });
      $("#clip-title").textContent = r.title; document.title = r.title + " · appliance"; say("Renamed"); } catch (e) { say(e.message); }
  });
  const setLocked = (locked) => { $("#lock").hidden = locked; $("#unlock").hidden = !locked; };
  $("#lock").addEventListener("click", async () => { try { await call("POST", `/api/recordings/${id}/lock`); setLocked(true); say("Locked"); } catch (e) { say(e.message); } });
  $("#unlock").addEventListener("click", async () => { try { await call("POST", `/api/recordings/${id}/unlock`); setLocked(false); say("Unlocked"); } catch (e) { say(e.message); } });
  $("#delete").addEventListener("click", async () => {
    if (!confirm("Delete this recording? This cannot be undone.")) return;
    try { await call("DELETE", `/api/recordings/${id}`); location.href = "/recordings"; } catch (e) { say(e.message); }
  });
  $("#share-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    try { const link = await call("POST", `/api/recordings/${id}/share`, { hours: Number($("#share-hours").value) });
      $("#shares").prepend(shareItem(link)); say("Share link made"); } catch (e) { say(e.message); }
  });
}

document.addEventListener("DOMContentLoaded", () => {
  localTimes();
  // A viewer is not offered what it may not do (the server refuses it anyway, 403).
  if (document.querySelector("nav")) call("GET", "/api/session").then((s) => { if (s.role === "viewer") document.body.classList.add("viewer"); }).catch(() => {});
  // Share links as whole URLs, ready to copy (the server knows only the path it serves).
  for (const a of document.querySelectorAll("a.share-link")) a.textContent = location.origin + a.getAttribute("href");
  const logout = $("#logout");
  if (logout) logout.addEventListener("click", async () => {
    await fetch("/logout", { method: "POST", headers: { "X-CSRF-Token": csrf() }, credentials: "same-origin" }); location.href = "/login";
  });
  const page = document.body.dataset.page;
  if (page === "live") livePage();
  if (page === "recordings" && $(".clip")) clipPage();
  if (page === "timeline") timelinePage();
  if (page === "settings") accountsSection();
  shareLists();
});
