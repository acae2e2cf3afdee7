import ApplianceBase
import ApplianceProtocol
import ArgumentParser
import Foundation

/// `ctl share ID`: an expiring link that plays and downloads one clip without a login (on the web dashboard).
struct Share: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Make a share link for a clip (/s/<token> on the web dashboard).")
    @OptionGroup var options: CtlOptions
    @Argument(help: "Recording id or a unique prefix of it.") var id: String
    @Option(name: .long, help: "How long the link works (default: [web] share_hours, 24).") var hours: Double?

    func run() {
        options.perform(.share(id: id, hours: hours)) { (link: ShareLink) in
            """
            \(link.url ?? "")  (id \(link.id), recording \(link.recordingId.prefix(8)), until \
            \(localDate(link.expiresAt)))
            """
        }
    }
}

struct Shares: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List the share links that still work.")
    @OptionGroup var options: CtlOptions

    func run() {
        options.perform(.shares) { (list: ShareList) in
            guard !list.items.isEmpty else { return "no share links" }
            return table(
                header: ["ID", "RECORDING", "TITLE", "UNTIL"],
                rows: list.items.map {
                    [$0.id, String($0.recordingId.prefix(8)), $0.title ?? "", localDate($0.expiresAt)]
                })
        }
    }
}

struct Unshare: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Revoke a share link at once.")
    @OptionGroup var options: CtlOptions
    @Argument(help: "The link's id (as `ctl shares` lists it), its token (the part after /s/), or the whole link.")
    var link: String

    func run() {
        let bare = link.split(separator: "/").last.map(String.init) ?? link
        options.perform(.unshare(link: bare)) { (r: UnshareResult) in "revoked \(r.id)" }
    }
}
