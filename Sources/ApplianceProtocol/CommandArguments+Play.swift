extension Command {
    /// `play`: exactly one of `file` (a path on the device) and `chime` (a name of `SpeakerChime`).
    static func play(_ args: Arguments) throws(ApplianceError) -> Command {
        try args.only(["file", "chime"])
        switch (try args.string("file"), try args.string("chime")) {
        case (let file?, nil):
            guard !file.isEmpty else { throw ApplianceError(.badRequest, "play: args.file is empty") }
            return .play(PlayRequest(file: file))
        case (nil, let name?):
            guard let chime = SpeakerChime(rawValue: name) else {
                throw ApplianceError(
                    .badRequest,
                    """
                    play: no chime named \"\(name)\" (chimes: \
                    \(SpeakerChime.allCases.map(\.rawValue).joined(separator: ", ")))
                    """
                )
            }
            return .play(PlayRequest(chime: chime))
        default:
            throw ApplianceError(.badRequest, "play: give args.file or args.chime, one of them")
        }
    }
}
