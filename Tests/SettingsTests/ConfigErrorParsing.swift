import XCTest

@testable import Settings

extension XCTestCase {
    /// The error parsing `text` (as the file "t.toml") gives; nil when it parses.
    func configError(_ text: String) -> ConfigError? {
        do {
            _ = try ConfigLoader.parse(text, file: "t.toml")
            return nil
        } catch {
            return error as? ConfigError
        }
    }
}
