import ApplianceProtocol
import ArgumentParser

@main
struct ApplianceCLI: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "appliance",
        abstract:
            """
            A recording appliance: camera + microphone to crash-safe MP4, driven by a shutter, a socket or a web \
            page.
            """,
        version: ApplianceVersion.current,
        subcommands: [Run.self, Ctl.self, Dev.self, DoctorCommand.self, EncoderTrialCommand.self])
}
