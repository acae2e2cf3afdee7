import ApplianceBase
import ApplianceProtocol
import GStreamerKit
import Logging
import ServiceLifecycle
import Settings

/// `[rtsp]`: serves the live stream until graceful shutdown. An address that cannot be bound (taken, not on this
/// machine) is reported in `status.rtsp` and retried every few seconds; recording never waits for it.
package struct RTSPService: Service {
    package static let retryInterval = Duration.seconds(5)

    package let config: ApplianceConfig.RTSP
    package let password: Password?
    package let feed: RTSPFeed
    package let logger: Logger
    /// With `[rtsp] tls`: the certificate chain and key to serve (PEM), read at each start; a failure is reported
    /// and retried like an address that cannot be bound.
    package let certificate: (@Sendable () throws -> String)?
    /// The accounts that may watch besides the token_file's `appliance`, taken again whenever they change.
    package let users: RTSPUsers?
    /// The guessing ledger's say before a credential is checked, and what the check found (`RTSPServer.Handlers`):
    /// RTSP's Digest counts in the same place as the web's passwords.
    package let admit: @Sendable (_ user: String?, _ client: String) -> Bool
    package let checked: @Sendable (_ user: String?, _ client: String, _ passed: Bool) -> Void
    /// The speaker a client may talk to over ONVIF's backchannel (nil: none offered).
    package let speaker: Speaker?
    /// With several channels, every channel's stream (the first's is `feed`), each served at `/<path>/<its name>`
    /// besides the first's at `/<path>`; empty with one channel.
    package var channels: [RTSPFeed] = []

    package init(
        config: ApplianceConfig.RTSP, password: Password?, feed: RTSPFeed, logger: Logger,
        certificate: (@Sendable () throws -> String)? = nil, users: RTSPUsers? = nil, speaker: Speaker? = nil,
        admit: @escaping @Sendable (String?, String) -> Bool = { _, _ in true },
        checked: @escaping @Sendable (String?, String, Bool) -> Void = { _, _, _ in }
    ) {
        (self.admit, self.checked) = (admit, checked)
        self.speaker = speaker
        self.config = config
        self.password = password
        self.feed = feed
        self.logger = logger
        self.certificate = certificate
        self.users = users
    }

    package func run() async throws {
        guard let (host, port) = config.hostAndPort else { return }
        let (mounts, served) = mountPlan()
        let credentials = password.map { RTSPServer.Credentials(user: ApplianceConfig.RTSP.user, password: $0.secret) }
        var handlers = feed.handlers
        (handlers.admit, handlers.checked) = (admit, checked)
        let (talks, talkArrivals) = AsyncStream.makeStream(of: (id: UInt32, started: Bool).self)
        handlers.talk = { talkArrivals.yield(($0, $1)) }
        while !Task.isShuttingDownGracefully {
            let server: RTSPServer
            do {
                server = try RTSPServer(
                    address: host, port: port, mounts: mounts, credentials: credentials, tlsPEM: try certificate?(),
                    backchannel: speaker != nil, handlers: handlers)
            } catch {
                let reason = "\(error)"
                feed.update {
                    $0.state = .failed
                    $0.url = nil
                    $0.error = reason
                }
                logger.error("RTSP \(reason); retrying every \(Self.retryInterval.components.seconds) s")
                try? await Task.sleep(for: Self.retryInterval)
                continue
            }
            let url =
                "\(certificate == nil ? "rtsp" : "rtsps")://\(HostAddress.shown(host)):\(server.port)/\(config.path)"
            for (stream, indices) in served { stream.serve(server, mounts: indices) }
            feed.update {
                $0.state = .serving
                $0.url = url
                $0.error = nil
                $0.channelStreams =
                    channels.isEmpty
                    ? nil : Dictionary(uniqueKeysWithValues: channels.map { ($0.name, url + "/" + $0.name) })
            }
            logger.info(
                "RTSP serving",
                metadata: ["url": "\(url)", "authentication": "\(credentials == nil ? "none" : "digest")"])
            await withDiscardingTaskGroup { group in
                group.addTask { await followTalks(talks, server: server) }
                await followUsers(server)
                talkArrivals.finish()
            }
            for (stream, _) in served { stream.serve(nil) }
            _ = try? await blocking { server.stop() }
            return
        }
    }

    /// The server's mounts, and which of them each stream feeds: `/<path>` is the first channel's; with several
    /// channels, `/<path>/<name>` is each one's (the first's too).
    private func mountPlan() -> (mounts: [RTSPServer.Mount], served: [(RTSPFeed, [Int])]) {
        var mounts = [feed.mount(path: "/" + config.path)]
        var served: [(RTSPFeed, [Int])] = [(feed, [0])]
        for channel in channels {
            mounts.append(channel.mount(path: "/" + config.path + "/" + channel.name))
            if channel === feed {
                served[0].1.append(mounts.count - 1)
            } else {
                served.append((channel, [mounts.count - 1]))
            }
        }
        return (mounts, served)
    }

    /// ONVIF's backchannel: a client's media with it takes the speaker (one talker at a time, shared with the
    /// dashboard's Talk: a second is refused and its voice dropped) until that media goes; whatever still talks
    /// when the server stops lets go.
    private func followTalks(_ talks: AsyncStream<(id: UInt32, started: Bool)>, server: RTSPServer) async {
        guard let speaker else { return }
        var talking = Set<UInt32>()
        for await (id, started) in talks {
            let talker = "rtsp-backchannel-\(id)"
            if started {
                do {
                    server.setTalk(id, to: try await speaker.startTalk(talker))
                    talking.insert(id)
                    logger.info("RTSP: a client talks over the ONVIF backchannel", metadata: ["media": "\(id)"])
                } catch {
                    logger.warning("RTSP: a client's backchannel is not played: \(error.message)")
                }
            } else if talking.remove(id) != nil {
                server.setTalk(id, to: nil)
                await speaker.endTalk(talker)
            }
        }
        for id in talking { await speaker.endTalk("rtsp-backchannel-\(id)") }
    }

    /// Hands the server the accounts now and after each change, until graceful shutdown.
    private func followUsers(_ server: RTSPServer) async {
        guard let users else {
            try? await gracefulShutdown()
            return
        }
        await withGracefulShutdownHandler {
            while !Task.isShuttingDownGracefully {
                let (entries, open) = await users.current()
                do {
                    try server.setUsers(talkers: entries.talkers, viewers: entries.viewers, open: open)
                    feed.update { $0.authentication = open ? "none" : "digest" }
                } catch {
                    logger.error("RTSP accounts: \(error)")
                }
                await users.changed.wait(until: nil)
            }
        } onGracefulShutdown: {
            users.changed.signal()
        }
    }
}

/// Who may watch over RTSP: every account's Digest entry (`name:appliance:HA1`; admins may also talk over the ONVIF
/// backchannel), and whether anyone may without a login (no account and no token_file), read again each time
/// `changed` is signalled.
package struct RTSPUsers: Sendable {
    package typealias Entries = (talkers: [String], viewers: [String])
    package let current: @Sendable () async -> (entries: Entries, open: Bool)
    package let changed: WakeSignal

    package init(current: @escaping @Sendable () async -> (entries: Entries, open: Bool), changed: WakeSignal) {
        (self.current, self.changed) = (current, changed)
    }
}
