import Foundation

/// The appliance's configuration, read from TOML (see Config/appliance.toml for every key with its default).
public struct ApplianceConfig: Sendable, Equatable {
    public var dataDir = "./data"
    /// Control socket path; empty means `<data_dir>/ctl.sock`.
    public var socket = ""
    /// Where the gst-launch fragments live; empty means the search path (see `FragmentLibrary`).
    public var pipelinesDir = ""
    public var logLevel = "info"
    public var video = Video()
    public var audio = Audio()
    public var cameras: [Camera] = [Camera()]
    /// The `[[channel]]` tables as written (none: one channel with every camera; see `channels`).
    public var channelTables: [Channel] = []
    public var preview = Preview()
    public var thumbnail = Thumbnail()
    public var recording = Recording()
    public var storage = Storage()
    public var backup = Backup()
    public var web = Web()
    public var rtsp = RTSP()
    public var mqtt = MQTT()
    public var onvif = ONVIF()
    public var motion = Motion()
    public var sound = Sound()
    public var speaker = Speaker()
    public var objects = Objects()
    public var inputs: [Input] = []
    public var outputs: [Output] = []

    public init() {}

    public struct Video: Sendable, Equatable {

        package init() {
        }
        public var width = 1280
        public var height = 720
        public var framerate = 30
        /// `auto` (the first of `encoderCandidates` that passes a trial encode), or the name of a fragment in
        /// pipelines/encoders/ (x264, openh264, v4l2h264, …), used untried.
        public var encoder = Video.autoEncoder
        /// What `auto` tries, in order: the boards' hardware encoders first, then the software ones.
        public var encoderCandidates = [
            "v4l2h264", "vah264", "vah264lp", "vaapih264", "nvh264", "qsvh264", "openh264", "x264",
        ]
        /// How long one candidate's trial may take (a hardware encoder's first start can be slow).
        public var encoderTrialS = 10.0
        public static let autoEncoder = "auto"
        public var encoderTrialLimit: Duration { .milliseconds(Int(encoderTrialS * 1000)) }
        public var bitrateKbps = 4000
        public var keyframeIntervalS = 1.0
        /// x264 speed preset (used by the x264 fragment).
        public var speedPreset = "veryfast"
        /// Burns the date and time into the recording (dashcam evidence); the preview's overlay never is.
        public var timestampOverlay = false
        /// A channel whose only camera is an `rtsp` one stores the camera's H.264 as sent (no decode, no encode);
        /// false: it is decoded and encoded again at the channel's size, rate and bitrate.
        public var passthrough = true
    }

    public struct Audio: Sendable, Equatable {
        /// auto | alsa | test | none
        public var source = "auto"
        public var device = "default"
        public var bitrateKbps = 128
        public var rate = 48000
        public var channels = 2
        /// Set in a channel's view (`channelViews`), never read from the file: the channels this one hands its
        /// microphone's sound to (it opens the sound card; they record what it hears).
        public var sharedWith: [String] = []
    }

    public struct Camera: Sendable, Equatable {
        public var name = "main"
        /// auto | v4l2 | test | pipeline | rtsp
        public var source = "auto"
        public var device = "/dev/video0"
        /// videotestsrc pattern for `test` sources.
        public var pattern = "smpte"
        /// A gst-launch fragment for `pipeline` sources (its last element's src pad is the camera output).
        public var pipeline = ""
        public var mirror = false
        /// 0, 90, 180 or 270 degrees clockwise.
        public var rotate = 0
        /// Keep streaming while another camera is active: switches to it are instant. Off by default, because
        /// two USB cameras on one bus often cannot stream together.
        public var alwaysOn = false
        /// A V4L2 camera's capture mode (`mode = "1280x720@30"`, optionally `"… mjpeg"`); nil: the appliance
        /// chooses the mode that delivers [video] width x height at its framerate (see `ModeChoice`).
        public var mode: ModeRequest?
        /// How long the camera's start (its source reaching PLAYING) may take before it counts as failed: a source
        /// can block there (a FIFO with no writer, a wedged USB camera, a network source with no answer).
        public var startTimeoutS = 10.0
        /// An `rtsp` camera's stream: rtsp:// or rtsps://, with no user or password in it (they go in `username`
        /// and `password_file`, so the URL can be logged and shown).
        public var url = ""
        public var username = ""
        /// A 0600 file whose first line is the camera's password; read at each start of the camera.
        public var passwordFile = ""
        /// auto (UDP, then TCP as rtspsrc tries them) | tcp | udp
        public var transport = "auto"
        /// The receiver's jitter buffer: how late a packet may come before it is given up.
        public var latencyMs = 200
        public init() {}
    }

    public struct Preview: Sendable, Equatable {
        /// auto | none | a fragment in pipelines/previews/ (kms, kms-fullscreen, wayland, gl)
        public var sink = "auto"
        /// Draws the REC mark, the elapsed time and the camera's name over the preview (never into the file).
        public var overlay = true
    }

    public struct Thumbnail: Sendable, Equatable {
        public var offsetS = 1.0
        public var maxWidth = 320
        public var maxHeight = 320
        public var quality = 85
        /// Scrubbing previews: a small frame this often while recording (0: none), this wide.
        public var scrubEveryS = 2.0
        public var scrubWidth = 160
    }

    public struct Recording: Sendable, Equatable {
        public var preRecordS = 0.0
        public var maxDurationS = 3600.0
        public var segmentS = 0.0
        public var syncIntervalS = 1.0
        public var fileLayout = FileLayout.fragmented
        /// Start recording as soon as the graph runs (dashcam): after every start, a restart or a crash.
        public var autostart = false
        /// What starts a recording besides a command: "manual" (nothing), or detectors joined by "+": "motion",
        /// "sound", "object" (any tracked object) or a tracked label ("person"), e.g. "motion+sound", "person+car".
        public var trigger = "manual"
        /// The detectors `trigger` names (empty: manual).
        public var triggerKinds: [String] {
            trigger == "manual" ? [] : trigger.split(separator: "+").map(String.init)
        }
        /// A recording started by an event ends this long after the last event ended…
        public var postRecordS = 5.0
        /// …or this long, when longer: events closer than this share one clip.
        public var eventGapS = 10.0
    }

    /// How a recording's file is laid out while it is written (see docs/DESIGN-NOTES.md, "Writing each clip once").
    public enum FileLayout: String, Sendable, Equatable, CaseIterable {
        /// Fragments while recording, one index appended when finished: the media is written once.
        case fragmented
        /// Index room reserved in front and rewritten in place, the unused room removed when finished: every clip
        /// is written twice (kept to measure against, and for readers that want the index first).
        case reserved
    }

    public struct Storage: Sendable, Equatable {
        /// What happens when retention may delete nothing more and space is still short.
        public enum OnFull: String, Sendable, Equatable, CaseIterable {
            /// The recording ends cleanly; status and a `storage_full` event say why.
            case stop
            /// The oldest locked clip goes (a dashcam that must keep recording).
            case overwriteOldestLocked = "overwrite_oldest_locked"
        }

        public var minFreeMb = 512
        /// Cap on the space clips take (0: none).
        public var maxUsedGb = 0.0
        /// Clips older than this are deleted (0: kept until space is needed).
        public var retentionDays = 0
        /// Clips and loop segments that cover an activity are kept this long by age (at least retention_days), and
        /// go after those that cover none when room is short; activity records and their pictures are kept as long.
        public var eventKeepDays = 30
        /// Locked clips may take at most this share of the space clips may use (max_used_gb, else the
        /// filesystem's size less min_free_mb).
        public var maxLockedPercent = 25.0
        public var onFull = OnFull.stop
        /// With backup on, clips not yet uploaded are the last to go (a warning event comes first).
        public var keepUntilBackedUp = false
    }

    public struct Backup: Sendable, Equatable {

        package init() {
        }
        public var url = ""
        public var username = ""
        public var passwordFile = ""
        /// PEM file of extra CA certificates to trust besides the system's store (a self-hosted server's own CA).
        public var caFile = ""
        public var onlyLocked = false
        public var bandwidthKbps = 0
        /// First retry delay after a transient failure; doubles each attempt (with jitter), at most 5 minutes.
        public var retryBaseS = 2.0
        /// S3 (`url = "s3://BUCKET/PREFIX"`): the service's URL; empty: AWS's for the region.
        public var endpoint = ""
        public var region = "us-east-1"
        public var accessKey = ""
        /// A file holding the secret access key (0600), or APPLIANCE_BACKUP_SECRET.
        public var secretKeyFile = ""
        /// `auto`: the bucket in the path for a custom endpoint (MinIO, Garage…), in the host name for AWS.
        public var pathStyle = "auto"
        /// `x-amz-storage-class` of every object ("" : the bucket's default).
        public var storageClass = ""
        /// `x-amz-server-side-encryption` of every object: "", "AES256" or "aws:kms".
        public var serverSideEncryption = ""
        /// Clips larger than this go up in parts of this size (S3's smallest part is 5 MiB).
        public var partSizeMb = 8

        public var enabled: Bool { !url.isEmpty }
        /// The url is an S3 bucket (`s3://`), not a WebDAV folder.
        public var isS3: Bool { url.hasPrefix("s3://") }
    }

    /// The web dashboard and HTTP API (`ApplianceWeb`).
    public struct Web: Sendable, Equatable {
        /// `host:port`; port 0 picks a free port (status says which); `off`: no web server.
        public var listen = "127.0.0.1:8080"
        /// A file holding the password (or API token): logins and `Authorization: Bearer` check against it.
        /// Empty: no login on loopback; refused at start for any other listen address.
        public var tokenFile = ""
        /// Read-only pages, the API's GETs and media without a login (commands still need one).
        public var publicRead = false
        /// `auto`: HTTPS on any address but loopback; `on`: HTTPS everywhere; `off`: plain HTTP (warned at start when
        /// other machines can reach it).
        public var tls = "auto"
        /// The user's own certificate (PEM, leaf first) and its key; empty: the device makes its own (under the
        /// data folder). Both or neither; read again when they change.
        public var certFile = ""
        public var keyFile = ""
        /// The live view's MJPEG stream: frames per second and size (encoded only while someone watches).
        public var liveFps = 15
        public var liveWidth = 640
        public var liveHeight = 360
        /// How long a new share link lives unless asked otherwise.
        public var shareHours = 24.0
        /// WebRTC live views (WHEP) at once; 0: none (the live page shows MJPEG).
        public var webrtcViewers = 4
        /// A STUN server for WebRTC viewers beyond this LAN (`stun://host:port`); empty: host candidates only.
        public var stun = ""
        /// Largest request body accepted (JSON commands, the login form).
        public static let maxBodyBytes = 64 * 1024

        public var enabled: Bool { listen != "off" }
        /// The host and port of `listen` (IPv6 in brackets: `[::1]:8080`); nil when malformed.
        public var hostAndPort: (host: String, port: Int)? { ListenAddress.parse(listen) }
        /// Only this machine can reach the address.
        public var isLoopback: Bool { hostAndPort.map { ListenAddress.isLoopback($0.host) } ?? false }
        /// The dashboard is served over HTTPS: `tls = "on"`, or `"auto"` on an address other machines reach.
        public var servesTLS: Bool { tls == "on" || (tls == "auto" && !isLoopback) }
        /// Plain HTTP that other machines can reach: allowed, with a loud warning at start.
        public var isPlainOnNetwork: Bool { enabled && !servesTLS && !isLoopback }
    }

    /// `[rtsp]`: the live stream for NVRs, Home Assistant and VLC (`rtsp://host:port/path`), the recording's own
    /// encoded video and audio; with `[web] token_file` set, it asks for user `appliance` and that password (Digest).
    public struct RTSP: Sendable, Equatable {
        /// `host:port` (`"0.0.0.0:8554"`; port 0 picks a free port, status says which), or `"off"`.
        public var listen = "off"
        /// The mount: `rtsp://host:port/<path>`.
        public var path = "live"
        /// RTSP over TLS (`rtsps://`) with the dashboard's certificate (`[web] cert_file`, or the device's own).
        public var tls = false
        /// The user name RTSP clients give (the password is `[web] token_file`'s).
        public static let user = "appliance"

        public var enabled: Bool { listen != "off" }
        public var hostAndPort: (host: String, port: Int)? { ListenAddress.parse(listen) }
        public var isLoopback: Bool { hostAndPort.map { ListenAddress.isLoopback($0.host) } ?? false }
    }

    /// `[onvif]`: the appliance as an ONVIF Profile S camera for NVRs and Home Assistant: WS-Discovery on UDP, the
    /// device, media and event services on the web server, its stream the `[rtsp]` mount.
    public struct ONVIF: Sendable, Equatable {
        public var enabled = false
        /// WS-Discovery's `host:port` (`0.0.0.0:3702`: every interface; an address: the interface that has it);
        /// empty: `[web] listen`'s address on port 3702; `off`: no discovery (the services still answer).
        public var listen = ""
        /// The name NVRs show; empty: the host name.
        public var name = ""
        public static let discoveryPort = 3702

        /// Where WS-Discovery listens, `listen` resolved against `[web] listen`; nil when off or malformed.
        public func discovery(web: Web) -> (host: String, port: Int)? {
            if listen == "off" { return nil }
            if !listen.isEmpty { return ListenAddress.parse(listen) }
            guard let host = web.hostAndPort?.host else { return nil }
            return (
                host == "::" || host == "[::]" ? "0.0.0.0" : host == "::1" || host == "localhost" ? "127.0.0.1" : host,
                Self.discoveryPort
            )
        }
    }

    /// `[mqtt]`: the broker the appliance reports to and takes commands from, and Home Assistant's discovery.
    public struct MQTT: Sendable, Equatable {
        /// `mqtt://host[:port]` or `mqtts://host[:port]`; empty: off.
        public var url = ""
        public var username = ""
        public var passwordFile = ""
        public var caFile = ""
        /// Empty: `appliance-<device id>`.
        public var clientID = ""
        /// Empty: `appliance/<device id>`.
        public var topicPrefix = ""
        /// `""`: no discovery.
        public var discoveryPrefix = "homeassistant"
        /// Empty: the host name.
        public var deviceName = ""

        public var enabled: Bool { !url.isEmpty }

        /// The broker's address from `url` (nil when malformed): port 1883, or 8883 with TLS, unless given.
        public var broker: (host: String, port: Int, tls: Bool)? {
            guard let parts = URLComponents(string: url), let scheme = parts.scheme,
                ["mqtt", "mqtts"].contains(scheme),
                let host = parts.host, !host.isEmpty, parts.path.isEmpty || parts.path == "/",
                parts.user == nil, parts.query == nil
            else { return nil }
            let tls = scheme == "mqtts"
            let port = parts.port ?? (tls ? 8883 : 1883)
            guard (1...65535).contains(port) else { return nil }
            return (host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host, port, tls)
        }
    }

    /// The socket path with the default applied.
    public var socketPath: String { socket.isEmpty ? dataDir + "/ctl.sock" : socket }
}
