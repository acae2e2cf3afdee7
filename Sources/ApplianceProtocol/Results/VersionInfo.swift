/// What `version` answers: the running daemon's version and the GStreamer it runs on (which can differ from the
/// `ctl` binary's after an upgrade that has not restarted the service).
public struct VersionInfo: Codable, Sendable, Equatable {
    public var version: String
    public var gstreamer: String

    public init(version: String, gstreamer: String) { (self.version, self.gstreamer) = (version, gstreamer) }
}
