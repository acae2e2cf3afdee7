import Foundation
import SystemCalls

/// A file only its owner may read (mode 0600, in a 0700 folder), written whole or not at all: a temporary file in
/// the same folder, synced, then renamed over the old one. A private key is never readable by others, not even
/// between its creation and a chmod.
package enum PrivateFile {
    package static func makeFolder(_ path: String) throws {
        try FileManager.default.createDirectory(
            atPath: path, withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        try SystemCall.run("chmod") { chmod(path, 0o700) }
    }

    package static func write(_ text: String, to path: String) throws {
        let temporary = path + ".new-\(getpid())"
        let fd = try SystemCall.run("open") { open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600) }
        do {
            defer { close(fd) }
            try SystemCall.run("fchmod") { fchmod(fd, 0o600) }
            let bytes = Array(text.utf8)
            var written = 0
            while written < bytes.count {
                let n = try bytes.withUnsafeBytes { buffer in
                    try SystemCall.run("write") {
                        Glibc.write(fd, buffer.baseAddress! + written, buffer.count - written)
                    }
                }
                written += n
            }
            try SystemCall.run("fsync") { fsync(fd) }
        } catch {
            unlink(temporary)
            throw error
        }
        try SystemCall.run("rename") { rename(temporary, path) }
    }
}
