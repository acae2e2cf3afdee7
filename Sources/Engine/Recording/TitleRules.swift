import ApplianceProtocol
import Foundation

/// Titles are free text (they never become file names) but not empty, not control characters, not huge.
enum TitleRules {
    static let maxLength = 500

    package static func valid(_ title: String) throws(ApplianceError) -> String {
        let trimmed = title.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw ApplianceError(.badRequest, "title must not be empty") }
        guard trimmed.count <= maxLength else {
            throw ApplianceError(.badRequest, "title longer than \(maxLength) characters")
        }
        guard !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw ApplianceError(.badRequest, "title must not contain control characters")
        }
        return trimmed
    }
}
