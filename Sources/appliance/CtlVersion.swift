import ApplianceProtocol
import ArgumentParser

struct Version: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the running daemon's version (and this ctl's, when they differ).")
    @OptionGroup var options: CtlOptions

    func run() {
        options.perform(.version) { (v: VersionInfo) in
            let daemon = "appliance \(v.version) (GStreamer \(v.gstreamer))"
            return v.version == ApplianceVersion.current ? daemon : daemon + "; this ctl is \(ApplianceVersion.current)"
        }
    }
}
