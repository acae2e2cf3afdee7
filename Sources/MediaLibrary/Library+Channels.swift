import GRDB

extension Library {
    /// Rows of `channel`: the first channel's (`first`) include those from before channels, which have none.
    static func ofChannel(_ channel: String, first: String?) -> SQL {
        channel == first ? "(channel = \(channel) OR channel IS NULL)" : "channel = \(channel)"
    }
}
