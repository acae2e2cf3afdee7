import ApplianceBase
import ApplianceProtocol
import Foundation
import Mp4

/// The dashboard's pages. Element ids are the contract the browser tests (Tests/Web) rely on.
enum Pages {
    /// The frame every page shares: navigation, the CSRF token for the script, and the page's body.
    static func layout(title: String, csrf: String?, active: String, body: String, nav: Bool = true) -> String {
        let links = [
            ("/live", "Live", "live"), ("/timeline", "Timeline", "timeline"),
            ("/recordings", "Recordings", "recordings"), ("/activity", "Events", "activity"),
            ("/settings", "Settings", "settings"),
        ]
        .map {
            """
            <a href=\"\($0.0)\"
              class=\"\($0.2 == active ? "active" : "")\($0.2 == "settings" ? " admin-only" : "")\">\($0.1)</a>
            """
        }.joined()
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="csrf" content="\(HTML.escape(csrf ?? ""))">
            <title>\(HTML.escape(title)) · appliance</title>
            <link rel="stylesheet" href="/assets/app.css">
            <script src="/assets/app.js" defer></script>
            </head><body data-page="\(active)">
            \(nav ? "<nav>\(links)<button id=\"logout\" class=\"link\">Log out</button></nav>" : "")
            <main>
            \(body)
            </main></body></html>
            """
    }

    /// `webrtc`: the page offers WebRTC first (`[web] webrtc_viewers` above 0).
    static let talkButton = """
        <button id="talk" class="admin-only talk" hidden title="Hold to talk through the device's speaker (or hold T)">\
        Hold to talk</button>
        """

    static func live(status: StatusReport, csrf: String?, webrtc: Bool = false) -> String {
        let cameras = status.cameras.map {
            """
            <option
              value=\"\(HTML.escape($0))\"\($0 == status.activeCamera ? " selected" : "")>\(HTML.escape($0))</option>
            """
        }.joined()
        let recording = status.recording
        let body = """
            <section class="live">
              \(pictures(status, webrtc: webrtc))
              <div class="controls">
                <button id="record" class="record admin-only\(recording != nil ? " on" : "")"
                  data-state="\(status.state.rawValue)">\(recording != nil ? "Stop" : "Record")</button>
                <span id="elapsed"
                  data-elapsed-ms="\(recording?.elapsedMs ?? 0)">\(HTML.duration(recording?.elapsedMs ?? 0))</span>
                <label class="admin-only">Camera <select id="camera">\(cameras)</select></label>
                <button id="snapshot">Snapshot</button>
                <button id="protect" class="admin-only" title="Lock the clips around now (the dashcam event \
            lock)">Protect</button>
                <button id="sound" hidden title="The live sound (WebRTC)">Sound on</button>
                \(webrtc && status.speaker != nil ? Self.talkButton : "")
              </div>
              \(levelMeter(status))
              <p id="message" role="status"></p>
              <p id="health" class="health">\(HTML.escape(healthLine(status)))</p>
              \(status.rtsp.map { "<p id=\"rtsp\" class=\"health\">\(HTML.escape(streamLine($0)))</p>" } ?? "")
              \(status.onvif.map { "<p id=\"onvif\" class=\"health\">\(HTML.escape(onvifLine($0)))</p>" } ?? "")
              <p id="last-snapshot"></p>
            </section>
            """
        return layout(title: "Live", csrf: csrf, active: "live", body: body)
    }

    /// The live picture; with several channels a grid of them, one per channel (`data-channel`), the first's
    /// keeping the ids the page's buttons and the single picture have.
    static func pictures(_ status: StatusReport, webrtc: Bool) -> String {
        let video = { (id: String) in
            """
            <video\(id) muted autoplay playsinline hidden data-webrtc="\(webrtc ? "on" : "off")"></video>
            """
        }
        let first = """
            <img id="live" src="/live.mjpeg" alt="live picture" width="640" height="360">\(video(" id=\"live-video\""))
            """
        guard status.channels.count > 1 else { return "<div class=\"picture\">\(first)</div>" }
        let tiles = status.channels.enumerated().map { place, channel in
            let name = HTML.escape(channel.name)
            let query = channel.name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            let picture =
                place == 0
                ? first
                : """
                <img src="/live.mjpeg?channel=\(query)" alt="\(name) live picture" \
                width="\(channel.width)" height="\(channel.height)">\(video(""))
                """
            return """
                <figure class="picture tile"\(place == 0 ? "" : " data-channel=\"\(name)\"")>\(picture)\
                <figcaption>\(name)</figcaption></figure>
                """
        }
        return "<div class=\"tiles\">\(tiles.joined())</div>"
    }

    /// The microphone's level (a meter the script keeps live) and whether motion goes on; nothing without them.
    static func levelMeter(_ status: StatusReport) -> String {
        var parts: [String] = []
        if let sound = status.sound {
            parts.append(
                """
                <label class="level">Sound <meter id="level" min="-60" max="0" low="-30" high="-6" optimum="-20"
                  value="\(max(-60, sound.levelDb ?? -60))"></meter>
                <span id="level-text">\(sound.levelDb.map { String(format: "%.0f dBFS", $0) } ?? "–")</span></label>
                """)
        }
        if let motion = status.motion {
            parts.append(
                """
                <span id=\"motion-state\"
                  class=\"badge\(motion.active ? " on" : "")\">\(motion.active ? "motion" : "no motion")</span>
                """
            )
        }
        return parts.isEmpty ? "" : "<p class=\"meters\">" + parts.joined(separator: " ") + "</p>"
    }

    /// The RTSP URL to paste into an NVR, Home Assistant or VLC, and who plays it (Assets' refresh writes the same).
    static func streamLine(_ rtsp: RTSPStatus) -> String {
        guard let url = rtsp.url else { return "RTSP \(rtsp.state.rawValue)\(rtsp.error.map { ": \($0)" } ?? "")" }
        let login = rtsp.authentication == "digest" ? " (your name and password)" : ""
        return "RTSP \(url)\(login) · \(rtsp.clients) \(rtsp.clients == 1 ? "client" : "clients")"
    }

    /// Where an NVR adds the device by hand (ONVIF), and whether it announces itself.
    static func onvifLine(_ onvif: ONVIFStatus) -> String {
        let login = onvif.authentication == "none" ? "" : " (your name and password)"
        let discovery =
            onvif.discovery == .serving
            ? "found by NVRs on \(onvif.interfaces.joined(separator: ", "))" : "discovery \(onvif.discovery.rawValue)"
        return "ONVIF \(onvif.deviceService ?? "starting")\(login) · \(discovery)"
    }

    /// Free space, time until the oldest clip is overwritten, dropped frames, A/V offset.
    static func healthLine(_ status: StatusReport) -> String {
        var parts: [String] = []
        if let capacity = status.capacity {
            parts.append("free \(HTML.size(capacity.freeBytes))")
            if let wrap = capacity.wrapsInS { parts.append("wraps in \(HTML.duration(Int(wrap * 1000)))") }
        }
        if status.storage.state == .missing { parts.append("storage missing") }
        if let full = status.storageFull { parts.append("storage full: \(full)") }
        parts.append("dropped \(status.recording?.droppedFrames ?? 0)")
        if let offset = status.recording?.avOffsetMs { parts.append(String(format: "A/V %.0f ms", offset)) }
        return parts.joined(separator: " · ")
    }

    /// `query`: the filter as given (`q`, `date`), kept in the form and the page links.
    static func recordings(list: ListResult, group: String?, query: [String: String], csrf: String?) -> String {
        let cards = list.items.map(card).joined(separator: "\n")
        var kept = query.filter { !$0.value.isEmpty }
        if let group { kept["group"] = group }
        let base =
            "/recordings?"
            + kept.sorted { $0.key < $1.key }
            .map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")&" }
            .joined()
        let previous =
            list.page > 1
            ? "<a id=\"previous\" href=\"\(HTML.escape(base))page=\(list.page - 1)\">← Newer</a>" : "<span></span>"
        let next =
            list.page < list.pages
            ? "<a id=\"next\" href=\"\(HTML.escape(base))page=\(list.page + 1)\">Older →</a>" : "<span></span>"
        let heading = group == nil ? "Recordings" : "Loop recording: segments"
        let body = """
            <h1>\(heading)</h1>
            <form id="filter" class="filter" method="get" action="/recordings">
              <input id="search" type="search" name="q" placeholder="Search titles"
                value="\(HTML.escape(query["q"] ?? ""))">
              <input id="date" type="date" name="date" value="\(HTML.escape(query["date"] ?? ""))">
              <button>Filter</button>
            </form>
            <p class="count"><span id="total">\(list.total)</span> recordings · page \(list.page) of \
            \(max(list.pages, 1))</p>
            <div id="recordings"
              class="grid">\(cards.isEmpty ? "<p class=\"empty\">No recordings yet.</p>" : cards)</div>
            <div class="pager">\(previous)\(next)</div>
            """
        return layout(title: heading, csrf: csrf, active: "recordings", body: body)
    }

    static func card(_ r: Recording) -> String {
        let thumb =
            r.thumbnail != nil
            ? "<img class=\"thumb\" loading=\"lazy\" src=\"/media/\(r.id)/thumbnail\" alt=\"\">"
            : "<div class=\"thumb none\"></div>"
        var badges = ""
        if r.locked {
            badges += "<span class=\"badge locked\" title=\"\(HTML.escape(r.lockReason ?? "locked"))\">🔒</span>"
        }
        if r.backupState != .none {
            let state = r.backupState.rawValue
            badges +=
                "<span class=\"badge backup \(state)\">\(r.backupState == .done ? "☁ backed up" : "☁ \(state)")</span>"
        }
        if r.state == .recording { badges += "<span class=\"badge rec\">● REC</span>" }
        let link = r.segments.map { "/recordings?group=\(r.group ?? r.id)&n=\($0)" } ?? "/recordings/\(r.id)"
        let segments = r.segments.map { " · \($0) segments" } ?? ""
        return """
            <a class="card" href="\(HTML.escape(link))" data-id="\(r.id)">\(thumb)
            <span class="title">\(HTML.escape(r.title))</span>
            <span class="meta"><time datetime="\(Timestamps.iso(r.createdAt))">\(HTML.date(r.createdAt))</time> · \
            \(HTML.duration(r.durationMs)) · \(HTML.size(r.sizeBytes))\(segments)</span>
            <span class="badges">\(badges)</span></a>
            """
    }

    /// `start`: where the player begins (seconds; `?t=` from an event's "play").
    static func clip(_ info: RecordingInfo, shares: [ShareLink], csrf: String?, start: Double? = nil) -> String {
        let r = info.recording
        let m = info.measured
        let rows: [(String, String)] =
            [
                ("Recorded", HTML.date(r.createdAt)), ("Duration", HTML.duration(m.durationMs ?? r.durationMs)),
                ("Size", HTML.size(m.sizeBytes ?? r.sizeBytes)),
                (
                    "Video",
                    [
                        m.videoCodec, m.width.flatMap { w in m.height.map { "\(w)×\($0)" } },
                        m.framerate.map { String(format: "%.0f fps", $0) },
                    ].compactMap { $0 }.joined(separator: " ")
                ),
                (
                    "Audio",
                    [m.audioCodec, m.audioChannels.map { "\($0) ch" }, m.audioSampleRate.map { "\($0) Hz" }].compactMap
                    { $0 }.joined(separator: " ")
                ),
                ("Camera", r.camera ?? "–"), ("State", r.state.rawValue), ("Backup", r.backupState.rawValue),
            ] + (m.error.map { [("Problem", $0)] } ?? [])
        let table = rows.map { "<tr><th>\($0.0)</th><td>\(HTML.escape($0.1))</td></tr>" }.joined()
        let links = shares.map(shareRow).joined()
        let body = """
            <section class="clip" data-id="\(r.id)">
              <h1 id="clip-title">\(HTML.escape(r.title))</h1>
              <video id="player" controls preload="metadata" playsinline
                src="/media/\(r.id)/video\(start.map { String(format: "#t=%.1f", $0) } ?? "")"\
            \(start.map { String(format: " data-start=\"%.1f\"", $0) } ?? "")\
            \(r.thumbnail != nil ? " poster=\"/media/\(r.id)/thumbnail\"" : "")><track kind="metadata"
              label="thumbnails" src="/media/\(r.id)/scrub.vtt"></video>
              <div class="controls">
                <button id="restart">Restart</button>
                <a id="download" class="button" href="/media/\(r.id)/video?download=1">Download</a>
                <button id="lock" class="admin-only"\(r.locked ? " hidden" : "")>Lock</button>
                <button id="unlock" class="admin-only"\(r.locked ? "" : " hidden")>Unlock</button>
                <button id="delete" class="danger admin-only">Delete</button>
              </div>
              <form id="rename-form" class="rename admin-only"><input id="title-input" name="title"
                value="\(HTML.escape(r.title))" maxlength="200">
              <button id="rename">Rename</button></form>
              <p id="message" role="status"></p>
              <table class="info">\(table)</table>
              <h2>Share</h2>
              <form id="share-form" class="share admin-only"><label>Valid for <select id="share-hours"><option
                value="1">1 hour</option>
              <option value="24" selected>24 hours</option><option value="168">7 days</option></select></label>
              <button id="share">Make a share link</button></form>
              <p class="hint">A link is shown once, when it is made: the device keeps only a hash of it.</p>
              <ul id="shares">\(links)</ul>
            </section>
            """
        return layout(title: r.title, csrf: csrf, active: "recordings", body: body)
    }

    /// A link in a list: its URL only when just made (the device keeps the token's hash, not the token), else its id.
    static func shareRow(_ link: ShareLink) -> String {
        let shown =
            link.url.map { "<a class=\"share-link\" href=\"\(HTML.escape($0))\">\(HTML.escape($0))</a>" }
            ?? "<span class=\"share-id\">link \(HTML.escape(link.id))</span>"
        return """
            <li data-id="\(HTML.escape(link.id))">\(shown)
            <span class="expires">until <time
              datetime="\(Timestamps.iso(link.expiresAt))">\(HTML.date(link.expiresAt))</time></span>
            <button class="revoke">Revoke</button></li>
            """
    }

    static func settings(
        backup: BackupStatus, lastUpload: Date?, config: String, shares: [ShareLink], accounts: String = "",
        csrf: String?
    ) -> String {
        let backupState =
            backup.enabled ? (backup.paused ? "paused: \(backup.pauseReason ?? "")" : "on, to \(backup.url)") : "off"
        let uploading =
            backup.current.map { "\($0.id.prefix(8)): \(HTML.size($0.bytesDone)) of \(HTML.size($0.bytesTotal))" }
            ?? "–"
        let queue = """
            <table class="info">
            <tr><th>Backup</th><td id="backup-state">\(HTML.escape(backupState))</td></tr>
            <tr><th>Queue</th><td id="backup-queue">\(backup.counts.pending) waiting, \(backup.counts.running) \
            uploading, \(backup.counts.done) done, \(backup.counts.failed) failed</td></tr>
            <tr><th>Uploading</th><td id="backup-current">\(uploading)</td></tr>
            <tr><th>Last upload</th><td id="backup-last">\(HTML.escape(lastUpload.map(HTML.date) ?? "–"))</td></tr>
            \(backup.lastError.map { "<tr><th>Last error</th><td>\(HTML.escape($0))</td></tr>" } ?? "")
            </table>
            """
        let links =
            shares.isEmpty
            ? "<p class=\"empty\">No share links.</p>"
            : "<ul id=\"shares\">"
                + shares.map { link in
                    shareRow(link).replacingOccurrences(
                        of: "<button class=\"revoke\">",
                        with:
                            """
                            <span class=\"shared-title\">\(HTML.escape(link.title ?? ""))</span> <button
                              class=\"revoke\">
                            """
                    )
                }.joined() + "</ul>"
        let body = """
            <p id="message" role="status"></p>
            <h1>Backup</h1>\(queue)
            <h2>Share links</h2>\(links)
            \(accounts)
            <h2>Configuration</h2>
            <p>Read-only: edit the config file and restart to change it. Secrets are never shown.</p>
            <pre id="config">\(HTML.escape(config))</pre>
            """
        return layout(title: "Settings", csrf: csrf, active: "settings", body: body)
    }

    static let noAccountYet = """
        <p>No account yet (appliance ctl user add NAME --role admin) and no [web] token_file: this dashboard is open \
        to this machine only.</p>
        """

    static func fingerprintNote(_ fingerprint: String) -> String {
        """
        <p class="fingerprint">This device's certificate, SHA-256: <code id="fingerprint">\(fingerprint)</code>. \
        Check that your browser shows the same before you trust it.</p>
        """
    }

    /// `fingerprint`: the served certificate's, to compare with what the browser shows before trusting it.
    static func login(error: String?, next: String, passwordSet: Bool, fingerprint: String?) -> String {
        let body = """
            <form id="login" class="login" method="post" action="/login">
              <h1>appliance</h1>
              \(error.map { "<p id=\"login-error\" class=\"error\">\(HTML.escape($0))</p>" } ?? "")
              \(passwordSet ? "" : Self.noAccountYet)
              <input type="hidden" name="next" value="\(HTML.escape(next))">
              <label>Name <input id="user" name="user" autocomplete="username" placeholder="appliance"
                autofocus></label>
              <label>Password <input id="password" type="password" name="password"
                autocomplete="current-password"></label>
              <button id="login-button">Log in</button>
              \(fingerprint.map(Self.fingerprintNote) ?? "")
            </form>
            """
        return layout(title: "Log in", csrf: nil, active: "login", body: body, nav: false)
    }

    /// The page a share link opens (`/s/<token>`: the token is the one in the request, which found the link).
    static func share(token: String, link: ShareLink, recording: Recording) -> String {
        let body = """
            <section class="clip shared">
              <h1>\(HTML.escape(recording.title))</h1>
              <video id="player" controls preload="metadata" playsinline src="/s/\(HTML.escape(token))/video"></video>
              <div class="controls"><a id="download" class="button"
                href="/s/\(HTML.escape(token))/video?download=1">Download</a></div>
              <p>Recorded \(HTML.date(recording.createdAt)) · \(HTML.duration(recording.durationMs)) · link valid until
              <time datetime="\(Timestamps.iso(link.expiresAt))">\(HTML.date(link.expiresAt))</time></p>
            </section>
            """
        return layout(title: recording.title, csrf: nil, active: "share", body: body, nav: false)
    }

    static func error(_ status: Int, _ message: String, csrf: String?) -> String {
        layout(
            title: "Error", csrf: csrf, active: "",
            body: "<h1>\(status)</h1><p id=\"error\">\(HTML.escape(message))</p>")
    }
}
