import Crypto
import Foundation
import HummingbirdBcrypt
import NIOPosix

/// The hashes that stand for secrets: bcrypt for passwords, MD5(name:realm:password) for RTSP's Digest, SHA-256
/// for API tokens (random, 256 bits: a slow hash adds nothing).
package enum PasswordHashing {
    /// bcrypt's cost: one check takes 2^cost rounds; 10 is 59 ms here (docs/BENCHMARKS.md, "Accounts"),
    /// in the 50–100 ms a login may take.
    package static let defaultCost: UInt8 = 10
    /// RTSP's Digest realm (the C shim's `GstRTSPAuth` uses the same).
    package static let realm = "appliance"

    /// One thread for every password check: a flood of guesses uses at most one core and never waits behind (or
    /// holds up) the blocking pool that cameras start on.
    private static let pool: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: 1)
        pool.start()
        return pool
    }()

    package static func hash(_ password: String, cost: UInt8) async throws -> String {
        try await pool.runIfActive { Bcrypt.hash(password, cost: cost) }
    }

    package static func verify(_ password: String, hash: String) async -> Bool {
        (try? await pool.runIfActive { Bcrypt.verify(password, hash: hash) }) ?? false
    }

    /// HA1 of RFC 7616: what a Digest server keeps instead of the password.
    package static func digestHA1(name: String, password: String) -> String {
        hex(Insecure.MD5.hash(data: Data("\(name):\(realm):\(password)".utf8)))
    }

    package static func tokenHash(_ token: String) -> String { hex(SHA256.hash(data: Data(token.utf8))) }

    private static func hex(_ digest: some Digest) -> String { digest.map { String(format: "%02x", $0) }.joined() }
}
