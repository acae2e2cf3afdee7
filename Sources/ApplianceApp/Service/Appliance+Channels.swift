import ApplianceProtocol
import Settings

extension Appliance {
    /// The config the live graph is built from: the one channel's view of it (`ApplianceConfig.forChannel`), so a
    /// `[[channel]]` table's own size, rate, encoder, trigger and sound apply. A config of several channels is refused
    /// with one line: recording them side by side is issue 61's next step, not yet built.
    static func recordedChannel(_ config: ApplianceConfig) throws -> ApplianceConfig {
        let channels = config.channels
        guard channels.count == 1, let channel = channels.first else {
            throw ApplianceError(
                .badRequest,
                """
                config: \(channels.count) [[channel]] tables (\(channels.map(\.name).joined(separator: ", "))), but \
                this version records one channel at a time: keep one [[channel]] and switch its cameras
                """)
        }
        return config.forChannel(channel)
    }
}
