#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A system call that failed: its name and errno. The one place errno is read and turned into text.
public struct SystemCallError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What was called, with what matters for a reader of the message (e.g. "open /dev/video0").
    public var call: String
    public var code: Int32

    public init(_ call: String, code: Int32) { (self.call, self.code) = (call, code) }

    /// The C library's text for the code ("No such file or directory").
    public var reason: String { SystemCall.text(code) }
    public var description: String { "\(call): \(reason)" }
}

/// The one wrapper for system calls that return -1 (or a negative count) and set errno on failure, as swift-nio
/// has one: an interrupted call (EINTR) runs again, any other failure throws `SystemCallError` with the errno read
/// right after the call (before anything else can change it).
public enum SystemCall {
    /// `retryingInterrupted`: false for calls that must not run twice (connect(2) goes on in the background after
    /// EINTR; calling it again answers EALREADY).
    @discardableResult
    public static func run<Result: BinaryInteger>(
        _ call: @autoclosure () -> String, retryingInterrupted: Bool = true,
        _ body: () -> Result
    ) throws(SystemCallError) -> Result {
        while true {
            let result = body()
            guard result < 0 else { return result }
            let code = errno
            if code == EINTR, retryingInterrupted { continue }
            throw SystemCallError(call(), code: code)
        }
    }

    /// The C library's text for an errno value.
    public static func text(_ code: Int32) -> String { String(cString: strerror(code)) }

    /// The current errno's text, for calls whose failure is not a negative return (e.g. `fopen`, `opendir`).
    public static var lastError: String { text(errno) }
}
