import Foundation
import Settings

/// libFuzzer's entry: the bytes are a config file as a user (or a tool, or a bad SD card) wrote it, read as
/// `ConfigLoader.load` reads one: UTF-8 text (anything else is refused there before parsing), then TOML into
/// `ApplianceConfig` with every section's checks. A `ConfigError` is the expected answer to nonsense; a trap is a bug.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    guard let text = String(validating: bytes, as: UTF8.self) else { return 0 }
    _ = try? ConfigLoader.parse(text, file: "fuzz.toml")
    return 0
}
