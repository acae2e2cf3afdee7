import ApplianceProtocol
import ArgumentParser
import Foundation

struct Play: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            """
            Play a sound file (any format GStreamer decodes: WAV, Ogg, MP3…) or one of the device's chimes on its \
            speaker.
            """,
        discussion:
            "Chimes: \(SpeakerChime.allCases.map(\.rawValue).joined(separator: ", ")). A sound playing is cut short.")
    @OptionGroup var options: CtlOptions
    @Argument(help: "The sound file (on the device; a relative path is from here).") var file: String?
    @Option(name: .long, help: "A chime by name instead of a file.") var chime: String?

    func validate() throws {
        guard (file != nil) != (chime != nil) else { throw ValidationError("give a sound file or --chime NAME") }
    }

    func run() {
        if let chime, SpeakerChime(rawValue: chime) == nil {
            fail("no chime named '\(chime)' (chimes: \(SpeakerChime.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        let request =
            chime.flatMap(SpeakerChime.init(rawValue:)).map { PlayRequest(chime: $0) }
            ?? PlayRequest(file: URL(fileURLWithPath: file ?? "").standardizedFileURL.path)
        options.perform(.play(request)) { (r: PlayResult) in
            """
            playing \(r.sound)\(r.durationMs.map { String(format: " (%.1f s)", Double($0) / 1000) } ?? "") on \
            \(r.speaker)
            """
                + (r.interrupted.map { "; cut \($0) short" } ?? "")
        }
    }
}
