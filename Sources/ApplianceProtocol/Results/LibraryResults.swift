/// What `list` answers: `items` newest first, and `total`.
public struct ListResult: Codable, Sendable, Equatable {
    public var items: [Recording]
    public var total: Int
    public var page: Int
    public var perPage: Int
    public var pages: Int
    /// Time spent inside the daemon answering, for the benchmark.
    public var elapsedMs: Double

    public init(items: [Recording], total: Int, page: Int, perPage: Int, pages: Int, elapsedMs: Double) {
        (self.items, self.total, self.page, self.perPage) = (items, total, page, perPage)
        (self.pages, self.elapsedMs) = (pages, elapsedMs)
    }
}

/// What `info` answers: the recording object, plus `measured`: what the file itself says now.
public struct RecordingInfo: Codable, Sendable, Equatable {
    public struct Measured: Codable, Sendable, Equatable {
        public var durationMs: Int?
        public var width: Int?
        public var height: Int?
        public var framerate: Double?
        public var videoCodec: String?
        public var audioCodec: String?
        public var audioChannels: Int?
        public var audioSampleRate: Int?
        public var sizeBytes: Int64?
        public var error: String?

        public init() {}
    }

    public var recording: Recording
    public var measured: Measured

    public init(recording: Recording, measured: Measured) { (self.recording, self.measured) = (recording, measured) }

    enum Keys: String, CodingKey { case measured }

    /// Flat on the wire: the recording's fields and `measured` side by side.
    public func encode(to encoder: Encoder) throws {
        try recording.encode(to: encoder)
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(measured, forKey: .measured)
    }

    public init(from decoder: Decoder) throws {
        recording = try Recording(from: decoder)
        measured = try decoder.container(keyedBy: Keys.self).decode(Measured.self, forKey: .measured)
    }
}

/// What `delete` answers.
public struct DeleteResult: Codable, Sendable, Equatable {
    public var id: String
    public var deletedFiles: [String]

    public init(id: String, deletedFiles: [String]) { (self.id, self.deletedFiles) = (id, deletedFiles) }
}
