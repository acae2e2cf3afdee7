import CGStreamer
import CRTSPServer
import Synchronization

/// An RTSP server (gst-rtsp-server) with one mount or several (a channel each), each shared by its clients, running on
/// a thread and main context of its own. A mount's media is built from its launch description the first time a
/// client asks for it; an `appsrc` in it (`is-live=true format=time`) is fed with `push` from another pipeline's
/// stream while clients play it.
public final class RTSPServer: @unchecked Sendable {
    /// One path the server serves, with what it tells the stream's owner (on the server's thread; each must return
    /// at once): a client asked for it (the pushed stream must flow from now on), its media is gone (once for each
    /// start), a client starts to play it (it decodes from the next keyframe).
    public struct Mount: Sendable {
        public var path: String
        public var launch: String
        public var mediaStarted: @Sendable () -> Void
        public var mediaStopped: @Sendable () -> Void
        public var clientPlaying: @Sendable () -> Void

        public init(
            path: String, launch: String, mediaStarted: @escaping @Sendable () -> Void = {},
            mediaStopped: @escaping @Sendable () -> Void = {}, clientPlaying: @escaping @Sendable () -> Void = {}
        ) {
            (self.path, self.launch) = (path, launch)
            (self.mediaStarted, self.mediaStopped, self.clientPlaying) = (mediaStarted, mediaStopped, clientPlaying)
        }
    }

    /// Who may play: one user with a password, checked by Digest authentication.
    public struct Credentials: Sendable {
        public var user: String
        public var password: String
        public init(user: String, password: String) { (self.user, self.password) = (user, password) }
    }

    /// What the server says, on its own thread: each must return at once (no blocking, no await). The first three are
    /// the one mount's of `init(address:port:path:launch:…)` (a `Mount` has its own).
    public struct Handlers: Sendable {
        /// A client asked for the mount: the pushed stream must flow from now on.
        public var mediaStarted: @Sendable () -> Void
        /// The media is gone (no client left); once for each `mediaStarted`.
        public var mediaStopped: @Sendable () -> Void
        /// A client starts to play: it decodes from the next keyframe.
        public var clientPlaying: @Sendable () -> Void
        /// A request carries credentials (the Digest user name it gave, if any; the peer's address): may they be
        /// checked now? false: refused (401) unchecked.
        public var admit: @Sendable (_ user: String?, _ client: String) -> Bool
        /// What the check `admit` allowed found.
        public var checked: @Sendable (_ user: String?, _ client: String, _ passed: Bool) -> Void
        /// A client's media with the ONVIF backchannel was made (`started`) or is gone; `id` for `setTalk`.
        public var talk: @Sendable (_ id: UInt32, _ started: Bool) -> Void
        public init(
            mediaStarted: @escaping @Sendable () -> Void = {}, mediaStopped: @escaping @Sendable () -> Void = {},
            clientPlaying: @escaping @Sendable () -> Void = {},
            admit: @escaping @Sendable (String?, String) -> Bool = { _, _ in true },
            checked: @escaping @Sendable (String?, String, Bool) -> Void = { _, _, _ in },
            talk: @escaping @Sendable (UInt32, Bool) -> Void = { _, _ in }
        ) {
            (self.mediaStarted, self.mediaStopped, self.clientPlaying) = (mediaStarted, mediaStopped, clientPlaying)
            (self.admit, self.checked) = (admit, checked)
            self.talk = talk
        }
    }

    private final class HandlerBox: Sendable {
        let handlers: Handlers
        let mounts: [Mount]
        init(_ handlers: Handlers, mounts: [Mount]) { (self.handlers, self.mounts) = (handlers, mounts) }

        static func of(_ user: UnsafeMutableRawPointer?) -> HandlerBox {
            Unmanaged<HandlerBox>.fromOpaque(user!).takeUnretainedValue()
        }

        /// The mount a C handler names (its index); nil for one the server never had.
        static func mount(_ index: guint, _ user: UnsafeMutableRawPointer?) -> Mount? {
            let mounts = of(user).mounts
            return mounts.indices.contains(Int(index)) ? mounts[Int(index)] : nil
        }
    }

    private let server: OpaquePointer
    /// Set under the lock before the C server is freed: a push from a probe that still holds this object after
    /// `stop` does nothing, and `stop` waits for one in progress (pushes never block, so it is short).
    private let stopped = Mutex(false)
    /// Retained for the C side (its `user` pointer) until the server has stopped.
    private let box: Unmanaged<HandlerBox>

    /// Binds `address`:`port` (0: any free port) and serves `launch` at `path` ("/live"). `tlsPEM`: a certificate
    /// chain and its private key in PEM, for RTSP over TLS (`rtsps://`). `backchannel`: offer ONVIF's audio
    /// backchannel (G.711 µ-law from the client, decoded for `setTalk`).
    public convenience init(
        address: String, port: Int, path: String, launch: String, credentials: Credentials? = nil,
        tlsPEM: String? = nil, backchannel: Bool = false, handlers: Handlers = Handlers()
    ) throws {
        let mount = Mount(
            path: path, launch: launch, mediaStarted: handlers.mediaStarted, mediaStopped: handlers.mediaStopped,
            clientPlaying: handlers.clientPlaying)
        try self.init(
            address: address, port: port, mounts: [mount], credentials: credentials, tlsPEM: tlsPEM,
            backchannel: backchannel, handlers: handlers)
    }

    /// Binds `address`:`port` and serves `mounts` (numbered in this order for `push`, `setCaps` and `mediaState`);
    /// the backchannel, when offered, is the first mount's. `handlers`' admit, checked and talk are the server's.
    public init(
        address: String, port: Int, mounts: [Mount], credentials: Credentials? = nil, tlsPEM: String? = nil,
        backchannel: Bool = false, handlers: Handlers = Handlers()
    ) throws {
        GStreamer.initialize()
        let box = Unmanaged.passRetained(HandlerBox(handlers, mounts: mounts))
        let c = ApplRtspHandlers(
            media_started: { mount, user in HandlerBox.mount(mount, user)?.mediaStarted() },
            media_stopped: { mount, user in HandlerBox.mount(mount, user)?.mediaStopped() },
            client_playing: { mount, user in HandlerBox.mount(mount, user)?.clientPlaying() },
            admit: { name, client, user in
                HandlerBox.of(user).handlers
                    .admit(name.map { String(cString: $0) }, client.map { String(cString: $0) } ?? "unknown") ? 1 : 0
            },
            checked: { name, client, passed, user in
                HandlerBox.of(user).handlers
                    .checked(
                        name.map { String(cString: $0) }, client.map { String(cString: $0) } ?? "unknown", passed != 0)
            },
            talk: { id, started, user in HandlerBox.of(user).handlers.talk(UInt32(id), started != 0) },
            user: box.toOpaque())
        var error: UnsafeMutablePointer<CChar>?
        let paths = mounts.map { g_strdup($0.path) }
        let launches = mounts.map { g_strdup($0.launch) }
        defer { for copy in paths + launches { g_free(copy) } }
        let started = paths.map { UnsafePointer($0) }.withUnsafeBufferPointer { pathList in
            launches.map { UnsafePointer($0) }.withUnsafeBufferPointer { launchList in
                appl_rtsp_server_start(
                    address, Int32(port), pathList.baseAddress, launchList.baseAddress, guint(mounts.count),
                    credentials?.user, credentials?.password, tlsPEM, backchannel ? 1 : 0, c, &error)
            }
        }
        guard let server = started else {
            box.release()
            let message = error.map { String(cString: $0) } ?? "cannot start the RTSP server"
            g_free(error)
            throw GStreamerError(element: "rtsp-server", message: message)
        }
        self.server = server
        self.box = box
    }

    deinit { stop() }

    /// Runs `body` on the C server unless it has stopped.
    private func whileRunning<T>(_ body: (OpaquePointer) -> T) -> T? {
        stopped.withLock { stopped in stopped ? nil : body(server) }
    }

    /// Replaces the accounts that may watch: `htdigest` lines `name:appliance:HA1` (Digest's hash, never a password),
    /// `talkers` (admins) may also use the ONVIF backchannel, `viewers` may not (403); `open`: anyone may watch
    /// without a login. The token_file's user given at start stays.
    public func setUsers(talkers: [String], viewers: [String], open: Bool) throws {
        var error: UnsafeMutablePointer<CChar>?
        let ok =
            whileRunning {
                appl_rtsp_server_set_users(
                    $0, talkers.joined(separator: "\n"), viewers.joined(separator: "\n"), open ? 1 : 0, &error) != 0
            } ?? true
        guard ok else {
            let message = error.map { String(cString: $0) } ?? "cannot set the RTSP accounts"
            g_free(error)
            throw GStreamerError(element: "rtsp-server", message: message)
        }
    }

    /// The port the server listens on (0 once stopped).
    public var port: Int { whileRunning { Int(appl_rtsp_server_port($0)) } ?? 0 }

    /// The state of the first mount's media pipeline now and the state it is changing to (`.voidPending`: none);
    /// nil while no client has asked for the mount.
    public var mediaState: (current: ElementState, pending: ElementState)? { mediaState(mount: 0) }

    /// The state of `mount`'s media pipeline (as `mediaState`).
    public func mediaState(mount: Int) -> (current: ElementState, pending: ElementState)? {
        whileRunning { server -> (ElementState, ElementState)? in
            var current = ElementState.null.raw
            var pending = ElementState.voidPending.raw
            return appl_rtsp_server_media_state(server, guint(mount), &current, &pending) != 0
                ? (ElementState(current), ElementState(pending)) : nil
        } ?? nil
    }

    /// Clients connected now.
    public var clients: Int { whileRunning { Int(appl_rtsp_server_clients($0)) } ?? 0 }

    /// The caps of what `push` hands to the appsrc `name` of `mount` (an encoder's output caps, with its codec data).
    public func setCaps(_ caps: Caps, for name: String, mount: Int = 0) {
        whileRunning { appl_rtsp_server_set_caps($0, guint(mount), name, caps.pointer) }
    }

    /// Hands a buffer to the appsrc `name` of the media (a new reference; the caller keeps its own). `runningTime`:
    /// its PTS as running time in the caller's pipeline (`ProbeInfo.runningTime`; raw PTS differ between streams:
    /// x264enc's segment starts at 1000 h). The first buffer pushed into a media fixes the shift onto that media's
    /// running time for every stream. False when no client asked for the mount. Never blocks: safe in a probe.
    @discardableResult
    public func push(_ buffer: BufferView, runningTime: UInt64, to name: String, mount: Int = 0) -> Bool {
        whileRunning {
            appl_rtsp_server_push($0, guint(mount), name, buffer.pointer, GstClockTime(runningTime)) != 0
        } ?? false
    }

    /// Where the voice of the backchannel media `id` goes: pushed into the appsrc `target` (48 kHz mono S16,
    /// unstamped), or dropped (nil).
    public func setTalk(_ id: UInt32, to target: Element?) {
        whileRunning { appl_rtsp_server_set_talk($0, guint(id), target?.pointer) }
    }

    /// Closes every client and stops the server; later calls do nothing.
    public func stop() {
        guard
            stopped.withLock({ stopped in
                defer { stopped = true }
                return !stopped
            })
        else { return }
        appl_rtsp_server_stop(server)
        box.release()
    }
}
