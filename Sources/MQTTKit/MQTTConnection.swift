import CMosquitto
import Foundation

/// One MQTT 3.1.1 client connection over libmosquitto, driven by its own network thread (`run()`): it connects,
/// subscribes again after every connect, keeps the session alive, and reconnects with backoff (1 s doubling to
/// 30 s) whatever went wrong: refused, unreachable, TLS, a dropped link. Nothing here blocks its callers: `publish`
/// hands the message to the network thread (libmosquitto's threaded mode), and what happens comes out of `events`.
public final class MQTTConnection: @unchecked Sendable {
    public struct Options: Sendable {
        public var host: String
        public var port: Int
        public var tls: Bool
        /// Trusted in addition to the system's CA store (`/etc/ssl/certs`).
        public var caFile: String?
        public var username: String?
        public var password: String?
        public var clientID: String
        public var keepAliveS: Int = 30
        /// Published by the broker when the link is lost without a clean disconnect.
        public var will: MQTTMessage?
        /// Subscribed after every connect.
        public var subscriptions: [(topic: String, qos: Int32)] = []
        /// How long a connect may take before it is given up and tried again.
        public var connectTimeout: Duration = .seconds(10)
        public var maxBackoff: Duration = .seconds(30)

        public init(host: String, port: Int, tls: Bool, clientID: String) {
            (self.host, self.port, self.tls, self.clientID) = (host, port, tls, clientID)
        }
    }

    public enum Event: Sendable, Equatable {
        case connected
        /// The link is down (or never came up): why, as one line.
        case disconnected(String)
        case message(MQTTMessage)
    }

    public let events: AsyncStream<Event>
    private let continuation: AsyncStream<Event>.Continuation
    private let options: Options
    private let handle: OpaquePointer
    private let lock = NSLock()
    private var stopping = false
    private var farewell: [MQTTMessage] = []
    private var connected = false
    private var pendingMids = Set<Int32>()
    /// The last error libmosquitto logged (a TLS failure's reason is only there).
    private var lastLoggedError: String?

    public init(_ options: Options) throws(MQTTError) {
        MQTTLibrary.initialize()
        self.options = options
        (events, continuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .bufferingNewest(4096))
        guard let handle = mosquitto_new(options.clientID, true, nil) else {
            throw MQTTError("cannot create an MQTT client (\(String(cString: strerror(errno))))")
        }
        self.handle = handle
        mosquitto_user_data_set(handle, Unmanaged.passUnretained(self).toOpaque())
        mosquitto_threaded_set(handle, true)
        if let username = options.username {
            try check(mosquitto_username_pw_set(handle, username, options.password), "the user name")
        }
        if let will = options.will {
            try check(
                will.payload.withUnsafeBytes {
                    mosquitto_will_set(handle, will.topic, Int32($0.count), $0.baseAddress, will.qos, will.retain)
                }, "the last will")
        }
        if options.tls {
            try check(
                mosquitto_tls_set(handle, options.caFile, "/etc/ssl/certs", nil, nil, nil),
                "TLS (ca_file \(options.caFile ?? "none"))")
        }
        installCallbacks()
    }

    deinit {
        mosquitto_destroy(handle)
    }

    /// Runs the connection on the calling thread until `stop`; then sends the farewell messages (waiting up to 2 s
    /// for the broker to take them) and disconnects cleanly.
    public func run() {
        var delay = Duration.seconds(1)
        var first = true
        while !isStopping {
            let rc =
                first
                ? mosquitto_connect_async(handle, options.host, Int32(options.port), Int32(options.keepAliveS))
                : mosquitto_reconnect_async(handle)
            first = false
            var reason: String?
            if rc != MQTTLibrary.success {
                reason = describe(rc)
            } else {
                let started = ContinuousClock.now
                while !isStopping {
                    let rc = mosquitto_loop(handle, 250, 1)
                    if rc != MQTTLibrary.success {
                        reason = describe(rc)
                        break
                    }
                    if !isConnected, ContinuousClock.now - started > options.connectTimeout {
                        reason =
                            """
                            no answer from \(options.host):\(options.port) within \
                            \(options.connectTimeout.components.seconds) s
                            """
                        break
                    }
                }
            }
            if isStopping { break }
            let wasConnected = markDisconnected()
            if wasConnected { delay = .seconds(1) }
            continuation.yield(.disconnected(reason ?? "the connection closed"))
            wait(delay)
            delay = min(delay * 2, options.maxBackoff)
        }
        sayGoodbye()
        continuation.finish()
    }

    /// Asks `run` to end; `farewell` goes out first when connected (the retained `offline`).
    public func stop(farewell: [MQTTMessage] = []) {
        lock.withLock {
            stopping = true
            self.farewell = farewell
        }
    }

    /// Hands a message to the network thread; false when not connected (nothing is queued for later: the caller
    /// publishes its state again after the next connect).
    @discardableResult
    public func publish(_ message: MQTTMessage) -> Bool {
        guard isConnected else { return false }
        return send(message) != nil
    }

    // MARK: - The network thread

    private var isStopping: Bool { lock.withLock { stopping } }
    private var isConnected: Bool { lock.withLock { connected } }

    private func markDisconnected() -> Bool {
        lock.withLock {
            defer { connected = false }
            return connected
        }
    }

    private func send(_ message: MQTTMessage) -> Int32? {
        var mid: Int32 = 0
        let rc = message.payload.withUnsafeBytes {
            mosquitto_publish(handle, &mid, message.topic, Int32($0.count), $0.baseAddress, message.qos, message.retain)
        }
        return rc == MQTTLibrary.success ? mid : nil
    }

    private func wait(_ delay: Duration) {
        let end = ContinuousClock.now + delay
        while !isStopping, ContinuousClock.now < end {
            Thread.sleep(forTimeInterval: 0.1)
        }
    }

    private func sayGoodbye() {
        let messages = lock.withLock { farewell }
        if isConnected {
            let mids = messages.compactMap(send)
            lock.withLock { pendingMids.formUnion(mids) }
            let end = ContinuousClock.now + .seconds(2)
            while ContinuousClock.now < end, !lock.withLock({ pendingMids.isEmpty }) {
                if mosquitto_loop(handle, 100, 1) != MQTTLibrary.success { break }
            }
            mosquitto_disconnect(handle)
            _ = mosquitto_loop(handle, 100, 1)
        }
        _ = markDisconnected()
    }

    private func check(_ rc: Int32, _ what: String) throws(MQTTError) {
        guard rc == MQTTLibrary.success else { throw MQTTError("MQTT \(what): \(describe(rc))") }
    }

    /// One line for a libmosquitto result: its own words, errno's for a system error, and what it logged for TLS.
    private func describe(_ rc: Int32) -> String {
        if rc == Int32(MOSQ_ERR_ERRNO.rawValue) { return String(cString: strerror(errno)) }
        let text = String(cString: mosquitto_strerror(rc))
        guard let logged = lock.withLock({ lastLoggedError }) else { return text }
        if rc == Int32(MOSQ_ERR_CONN_REFUSED.rawValue) { return logged }  // the CONNACK's own words say it all
        if rc == Int32(MOSQ_ERR_TLS.rawValue) { return "\(text): \(logged)" }
        return text
    }

    // MARK: - Callbacks (on the network thread)

    private static func connection(_ object: UnsafeMutableRawPointer?) -> MQTTConnection? {
        object.map { Unmanaged<MQTTConnection>.fromOpaque($0).takeUnretainedValue() }
    }

    private func installCallbacks() {
        mosquitto_connect_callback_set(handle) { handle, object, code in
            guard let me = MQTTConnection.connection(object) else { return }
            if code == 0 {
                me.lock.withLock {
                    me.connected = true
                    me.lastLoggedError = nil
                }
                for subscription in me.options.subscriptions {
                    _ = mosquitto_subscribe(handle, nil, subscription.topic, subscription.qos)
                }
                me.continuation.yield(.connected)
            } else {
                me.lock.withLock { me.lastLoggedError = String(cString: mosquitto_connack_string(code)) }
            }
        }
        mosquitto_disconnect_callback_set(handle) { _, object, _ in
            guard let me = MQTTConnection.connection(object) else { return }
            me.lock.withLock { me.connected = false }
        }
        mosquitto_publish_callback_set(handle) { _, object, mid in
            guard let me = MQTTConnection.connection(object) else { return }
            _ = me.lock.withLock { me.pendingMids.remove(mid) }
        }
        mosquitto_message_callback_set(handle) { _, object, message in
            guard let me = MQTTConnection.connection(object), let m = message?.pointee, let topic = m.topic else {
                return
            }
            let payload = m.payload.map { Array(UnsafeRawBufferPointer(start: $0, count: Int(m.payloadlen))) } ?? []
            me.continuation.yield(
                .message(MQTTMessage(topic: String(cString: topic), payload: payload, qos: m.qos, retain: m.retain)))
        }
        mosquitto_log_callback_set(handle) { _, object, level, text in
            guard level & Int32(MOSQ_LOG_ERR) != 0, let me = MQTTConnection.connection(object), let text else { return }
            me.lock.withLock { me.lastLoggedError = String(cString: text) }
        }
    }
}

/// A message as published or received.
public struct MQTTMessage: Sendable, Equatable {
    public var topic: String
    public var payload: [UInt8]
    public var qos: Int32
    public var retain: Bool

    public init(topic: String, payload: [UInt8], qos: Int32 = 0, retain: Bool = false) {
        (self.topic, self.payload, self.qos, self.retain) = (topic, payload, qos, retain)
    }

    public init(topic: String, text: String, qos: Int32 = 0, retain: Bool = false) {
        self.init(topic: topic, payload: Array(text.utf8), qos: qos, retain: retain)
    }

    public var text: String? { String(validating: payload, as: UTF8.self) }
}

public struct MQTTError: Error, CustomStringConvertible, Sendable {
    public var description: String
    init(_ description: String) { self.description = description }
}

enum MQTTLibrary {
    static let success = Int32(MOSQ_ERR_SUCCESS.rawValue)
    private static let initialized: Bool = {
        mosquitto_lib_init()
        return true
    }()

    static func initialize() { _ = initialized }
}
