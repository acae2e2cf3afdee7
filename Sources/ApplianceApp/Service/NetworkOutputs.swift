import Accounts
import ApplianceBase
import ApplianceProtocol
import Engine
import Foundation
import Logging
import MQTTIntegration
import ONVIF
import ServiceLifecycle
import Settings
import TLSIdentity

/// What the appliance offers other machines besides the web page: the RTSP stream, the MQTT link and the ONVIF
/// device, each built from its section (nil when off) with the status holder `status` reads, then their services.
struct NetworkOutputs {
    /// `channels`: with several channels, every channel's stream (the first is `feed`), each at `/live/NAME`.
    var rtsp: (feed: RTSPFeed, password: Password?, channels: [RTSPFeed])?
    var mqtt: (settings: MQTTSettings, link: MQTTLink)?
    var onvif: (link: ONVIFLink, password: Password?)?

    /// From the groundwork: `feed` is the first channel's streams; the other channels' are their own (with RTSP on,
    /// each served at `/live/NAME`).
    init(_ g: Groundwork, feed: LiveFeed) throws {
        try self.init(config: g.config, feed: feed, others: g.channels.map { ($0.name, $0.feed) })
    }

    /// `feed`: the first channel's streams; `others`: the other channels' by name.
    init(config: ApplianceConfig, feed: LiveFeed, others: [(name: String, feed: LiveFeed)] = []) throws {
        let password = config.web.tokenFile.isEmpty ? nil : try Password(file: config.web.tokenFile)
        if config.rtsp.enabled {
            let status = RTSPStatus(
                state: .starting, listen: config.rtsp.listen, authentication: password == nil ? "none" : "digest")
            let first = RTSPFeed(
                feed: feed, status: status, name: config.channels.first?.name ?? ApplianceConfig.defaultChannelName)
            let channels = others.isEmpty ? [] : [first] + others.map { RTSPFeed(feed: $1, status: status, name: $0) }
            rtsp = (first, password, channels)
        }
        if config.mqtt.enabled {
            let settings = try MQTTSettings(config: config, hasSpeaker: SpeakerSink.resolve(config.speaker) != nil)
            mqtt = (settings, MQTTLink(settings.initialStatus))
        }
        if config.onvif.enabled {
            let discovery = config.onvif.discovery(web: config.web)
            let status = ONVIFStatus(
                discovery: discovery == nil ? .off : .starting,
                listen: config.onvif.listen.isEmpty
                    ? discovery.map { "\($0.host):\($0.port)" } ?? "off" : config.onvif.listen,
                endpoint: ONVIFLink.endpoint(), authentication: password == nil ? "none" : "ws-usernametoken")
            onvif = (ONVIFLink(status), password)
        }
    }

    /// The ONVIF device the web server answers for, asking `status` for what it reports.
    /// `channels`: the views of the config of the channels after the first (a media profile each).
    func onvifDevice(
        config: ApplianceConfig, channels: [ApplianceConfig], logger: Logger, status: StatusReporter,
        accounts: AccountBook
    ) -> ONVIFDevice? {
        onvif.map { onvif in
            ONVIFDevice(
                config: config, password: onvif.password, accounts: Self.onvifAccounts(accounts), link: onvif.link,
                serial: DeviceIdentity.current().id.uppercased(), logger: logger, channels: channels,
                status: { await status.status() })
        }
    }

    /// The accounts as ONVIF checks them (PasswordText over HTTPS).
    static func onvifAccounts(_ accounts: AccountBook) -> ONVIFAccounts {
        ONVIFAccounts(
            verify: { name, password in await accounts.verify(name: name, password: password)?.role },
            exist: { accounts.hasAccounts })
    }

    func services(
        config: ApplianceConfig, device: ONVIFDevice?, events: EventHub, logger: Logger, accounts: AccountBook,
        speaker: Speaker?, perform: @escaping @Sendable (Command) async throws(ApplianceError) -> CommandResult
    ) -> [any Service] {
        var services: [any Service] = []
        if let rtsp {
            let source = CertificateSource(config: config)
            let certificate: (@Sendable () throws -> String)? =
                config.rtsp.tls
                ? { @Sendable in
                    let served = try source.load().identity
                    return served.certificateChainPEM + "\n" + served.privateKeyPEM
                } : nil
            let refusals = AuthRefusals(events: events, logger: logger)
            var service = RTSPService(
                config: config.rtsp, password: rtsp.password, feed: rtsp.feed, logger: logger,
                certificate: certificate, users: Self.rtspUsers(accounts), speaker: speaker,
                admit: Self.rtspAdmit(accounts.guesses), checked: Self.rtspChecked(accounts.guesses, refusals))
            service.channels = rtsp.channels
            services.append(service)
        }
        if let mqtt {
            services.append(
                MQTTBridge(settings: mqtt.settings, link: mqtt.link, events: events, logger: logger, perform: perform))
        }
        if let device {
            services.append(ONVIFEventFeed(device: device, events: events))
            if let (host, port) = config.onvif.discovery(web: config.web) {
                services.append(WSDiscoveryService(device: device, host: host, port: port, logger: logger))
            }
        }
        return services
    }

    /// RTSP's server cannot wait on its thread: an attempt the guessing ledger would hold (a failure's delay, a check
    /// of the same client under way) or refuses is answered 401 at once, unchecked.
    static func rtspAdmit(_ guesses: GuessLedger) -> @Sendable (String?, String) -> Bool {
        { user, client in guesses.admit(client: client, account: user, canWait: false) == .check }
    }

    /// A Digest check's outcome into the ledger; a refusal logged and evented once per burst, and when it locks.
    static func rtspChecked(_ guesses: GuessLedger, _ refusals: AuthRefusals)
        -> @Sendable (String?, String, Bool) -> Void
    {
        { user, client, passed in
            guard !passed else { return guesses.succeeded(client: client, account: user) }
            refusals.refused(
                guesses.failed(client: client, account: user), door: "rtsp", client: client, user: user,
                reason: "wrong name or password")
        }
    }

    /// The accounts as RTSP's server takes them, signalled again on every change.
    static func rtspUsers(_ accounts: AccountBook) -> RTSPUsers {
        let changed = WakeSignal()
        accounts.onChange { changed.signal() }
        return RTSPUsers(
            current: {
                ((try? await accounts.digestEntries()) ?? ([], []), !accounts.hasAccounts && !accounts.hasTokenFile)
            }, changed: changed)
    }
}
