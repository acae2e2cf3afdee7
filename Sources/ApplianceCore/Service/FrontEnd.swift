import ApplianceProtocol
import Logging
import ServiceLifecycle
import ApplianceBase
import Settings
import ONVIF
import Engine
import Accounts

/// What a front end built outside ApplianceCore (the web dashboard) gets: the one entry point and the event stream
/// like every other front end, plus read-only views it cannot get through commands (media files by id, the live
/// view's frames, the web settings it is configured by).
public struct FrontEndContext: Sendable {
    public let config: ApplianceConfig
    public let perform: @Sendable (Command) async throws(ApplianceError) -> CommandResult
    public let events: EventHub
    public let live: LiveView
    /// The live page's WebRTC sessions (WHEP).
    public let webrtc: any WHEPSessions
    public let media: MediaCatalog
    /// Where the front end reports its own health (the web server's bound address), shown in `status`.
    public let reporter: FrontEndReporter
    /// The accounts: who a credential belongs to, and with what role (changes to them are commands).
    public let accounts: AccountBook
    /// The ONVIF device whose SOAP requests the web server takes (nil when `[onvif]` is off).
    public var onvif: ONVIFDevice? = nil
    public let logger: Logger
}

/// Makes a front end's Services once the appliance is composed (the web server, and its certificate's watcher when it
/// serves HTTPS); none when the config turns that front end off (a Service that returns at once would end the group).
public typealias FrontEnd = @Sendable (FrontEndContext) throws -> [any Service]
