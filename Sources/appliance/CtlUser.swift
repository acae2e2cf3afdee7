import ApplianceProtocol
import ArgumentParser
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// `ctl user …`: the accounts that log in to the dashboard (and, with their roles, to the API). A password is read
/// from `--password-file` or from standard input (asked for without echo on a terminal), never from the command
/// line, where `ps` and the shell's history would show it.
struct UserCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "user", abstract: "Add, change, remove and list accounts; make API tokens.",
        subcommands: [
            UserList.self, UserAdd.self, UserPasswd.self, UserRoleCommand.self, UserRemove.self, UserTokenCommand.self,
            UserRevokeTokens.self,
        ],
        defaultSubcommand: UserList.self)

    struct UserList: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "The accounts (never their passwords).")
        @OptionGroup var options: CtlOptions

        func run() {
            options.perform(.users) { (list: ApplianceProtocol.UserList) in
                let legacy =
                    list.tokenFile ? "\n[web] token_file's password is accepted too (as the admin \"appliance\")" : ""
                guard !list.items.isEmpty else {
                    return "no accounts (appliance ctl user add NAME --role admin)" + legacy
                }
                return table(
                    header: ["NAME", "ROLE", "CREATED", "LAST LOGIN", "TOKENS"],
                    rows: list.items.map {
                        [
                            $0.name, $0.role.rawValue, localDate($0.createdAt), $0.lastLogin.map(localDate) ?? "never",
                            "\($0.tokens)",
                        ]
                    }) + legacy
            }
        }
    }

    struct UserAdd: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "add", abstract: "Add an account.")
        @OptionGroup var options: CtlOptions
        @Argument(help: "The name: 1 to 32 of a-z, 0-9, '.', '_', '-'.") var name: String
        @Option(name: .long, help: "admin (everything) or viewer (watch and play only).") var role: UserRole
        @Option(name: .long, help: "Read the password from this file's first line (else standard input).")
        var passwordFile: String?

        func run() {
            let password = PasswordInput.read(file: passwordFile, prompt: "Password for \(name): ")
            options.perform(.userAdd(name: name, role: role, password: password)) { (user: UserAccount) in
                "added \(user.name) (\(user.role.rawValue))"
            }
        }
    }

    struct UserPasswd: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "passwd", abstract: "Set an account's password (its web sessions end).")
        @OptionGroup var options: CtlOptions
        @Argument(help: "The account's name.") var name: String
        @Option(name: .long, help: "Read the password from this file's first line (else standard input).")
        var passwordFile: String?

        func run() {
            let password = PasswordInput.read(file: passwordFile, prompt: "New password for \(name): ")
            options.perform(.userPassword(name: name, password: password)) { (user: UserAccount) in
                "password of \(user.name) changed"
            }
        }
    }

    struct UserRoleCommand: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "role", abstract: "Set an account's role.")
        @OptionGroup var options: CtlOptions
        @Argument(help: "The account's name.") var name: String
        @Argument(help: "admin or viewer.") var role: UserRole

        func run() {
            options.perform(.userRole(name: name, role: role)) { (user: UserAccount) in
                "\(user.name) is now a \(user.role.rawValue)"
            }
        }
    }

    struct UserRemove: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove", abstract: "Remove an account, its API tokens and its sessions.")
        @OptionGroup var options: CtlOptions
        @Argument(help: "The account's name.") var name: String

        func run() { options.perform(.userRemove(name: name)) { (r: UserRemoved) in "removed \(r.name)" } }
    }

    struct UserTokenCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "token",
            abstract: "Make an API token for an account (shown once; send it as Authorization: Bearer TOKEN).")
        @OptionGroup var options: CtlOptions
        @Argument(help: "The account's name.") var name: String

        func run() { options.perform(.userToken(name: name)) { (t: UserToken) in t.token } }
    }

    struct UserRevokeTokens: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "revoke-tokens", abstract: "Revoke every API token of an account at once.")
        @OptionGroup var options: CtlOptions
        @Argument(help: "The account's name.") var name: String

        func run() {
            options.perform(.userRevokeTokens(name: name)) { (user: UserAccount) in "API tokens of \(user.name) revoked"
            }
        }
    }
}

extension UserRole: ExpressibleByArgument {}

/// A password for `ctl user add` and `passwd`: a file's first line, or standard input's (without echo on a terminal).
enum PasswordInput {
    static func read(file: String?, prompt: String) -> Secret {
        let line: String?
        if let file {
            guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
                fail("cannot read the password file \(file)")
            }
            line = text.split(separator: "\n", omittingEmptySubsequences: false).first.map(String.init)
        } else if isatty(STDIN_FILENO) == 1 {
            line = getpass(prompt).map { String(cString: $0) }
        } else {
            line = readLine(strippingNewline: true)
        }
        guard let line, !line.isEmpty else { fail("no password given (standard input or --password-file)") }
        return Secret(line.hasSuffix("\r") ? String(line.dropLast()) : line)
    }
}
