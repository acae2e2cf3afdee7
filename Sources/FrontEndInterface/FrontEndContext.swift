import Accounts
import ApplianceBase
import ApplianceProtocol
import Logging
import ONVIF
import ServiceLifecycle
import Settings

/// What a front end built outside the composition root (the web dashboard) gets: the one entry point and the event
/// stream like every other front end, plus read-only views it cannot get through commands (media files by id, the
/// live view's frames, WebRTC sessions, the web settings it is configured by). Each view is a protocol: a front end
/// never sees the live graph, and builds without GStreamer.
public struct FrontEndContext: Sendable {
    public let config: ApplianceConfig
    public let perform: @Sendable (Command) async throws(ApplianceError) -> CommandResult
    public let events: EventHub
    public let live: any LiveFrames
    /// The live page's WebRTC sessions (WHEP).
    public let webrtc: any WHEPSessions
    /// Every channel's live picture and WebRTC sessions, the first's (`live`, `webrtc`) first.
    public let channels: LiveChannels
    public let media: any MediaFiles
    /// Where the front end reports its own health (the web server's bound address), shown in `status`.
    public let reporter: FrontEndReporter
    /// The accounts: who a credential belongs to, and with what role (changes to them are commands).
    public let accounts: AccountBook
    /// The ONVIF device whose SOAP requests the web server takes (nil when `[onvif]` is off).
    public var onvif: ONVIFDevice?
    public let logger: Logger

    public init(
        config: ApplianceConfig, perform: @escaping @Sendable (Command) async throws(ApplianceError) -> CommandResult,
        events: EventHub, live: any LiveFrames, webrtc: any WHEPSessions, media: any MediaFiles,
        reporter: FrontEndReporter, accounts: AccountBook, onvif: ONVIFDevice? = nil, logger: Logger,
        otherChannels: [LiveChannels.Channel] = []
    ) {
        (self.config, self.perform, self.events, self.live, self.webrtc) = (config, perform, events, live, webrtc)
        (self.media, self.reporter, self.accounts, self.onvif, self.logger) = (media, reporter, accounts, onvif, logger)
        let first = config.channels.first?.name ?? ApplianceConfig.defaultChannelName
        channels = LiveChannels(first: .init(name: first, live: live, webrtc: webrtc), others: otherChannels)
    }
}

/// Makes a front end's Services once the appliance is composed (the web server, and its certificate's watcher when it
/// serves HTTPS); none when the config turns that front end off (a Service that returns at once would end the group).
public typealias FrontEnd = @Sendable (FrontEndContext) throws -> [any Service]
