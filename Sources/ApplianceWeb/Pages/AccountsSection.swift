import ApplianceProtocol
import Foundation

/// The settings page's accounts and sessions (admins only, as the whole page): the accounts with their roles, a
/// form to add one and one to set a password, a new API token shown once; the web sessions, each revocable.
extension Pages {
    static let noSessions = "<p class=\"empty\">No one is logged in with a password.</p>"

    static func accounts(users: UserList, sessions: [SessionSummary]) -> String {
        let roles = { (selected: UserRole) in
            UserRole.allCases.reversed().map { "<option\($0 == selected ? " selected" : "")>\($0.rawValue)</option>" }
                .joined()
        }
        let rows = users.items.map { user in
            """
            <tr data-user="\(HTML.escape(user.name))"><td class="user-name">\(HTML.escape(user.name))</td>
            <td><select class="user-role" aria-label="role of \
            \(HTML.escape(user.name))">\(roles(user.role))</select></td>
            <td>\(user.lastLogin.map { "<time datetime=\"\(Timestamps.iso($0))\">\(HTML.date($0))</time>" } ?? "never")\
            </td>
            <td class="user-tokens">\(user.tokens)</td>
            <td><button class="user-token">New API token</button> <button class="user-untoken">Revoke API \
            tokens</button>
            <button class="user-remove">Remove</button></td></tr>
            """
        }.joined()
        let names = users.items.map { "<option>\(HTML.escape($0.name))</option>" }.joined()
        let legacy =
            users.tokenFile
            ? """
            <p>The <code>[web] token_file</code> password is accepted too, as the admin <code>appliance</code>: \
            remove the line from the config once every admin has an account.</p>
            """
            : ""
        let sessionItems = sessions.map { session in
            """
            <li data-session="\(HTML.escape(session.handle))"><span
              class="session-user">\(HTML.escape(session.user))</span> (\(session.role.rawValue)) \
            from \(HTML.escape(session.client)) since <time
              datetime="\(Timestamps.iso(session.createdAt))">\(HTML.date(session.createdAt))</time> \
            <button class="session-revoke">Log out</button></li>
            """
        }.joined()
        return """
            <h2>Accounts</h2>
            <table id="users" class="info"><thead><tr><th>Name</th><th>Role</th><th>Last login</th><th>API \
            tokens</th><th></th></tr></thead>
            <tbody>\(rows)</tbody></table>
            \(legacy)
            <p id="user-token-shown" hidden>New API token for <span id="user-token-name"></span>, shown only now: \
            <code id="user-token"></code></p>
            <form id="user-add" class="inline"><input id="user-add-name" placeholder="name" aria-label="new account's
              name" required pattern="[a-z0-9][a-z0-9._\\-]{0,31}">
              <select id="user-add-role" aria-label="new account's role">\(roles(.viewer))</select>
              <input id="user-add-password" type="password" placeholder="password (8 or more)" aria-label="new \
            account's password" minlength="8" maxlength="72" required autocomplete="new-password">
              <button>Add account</button></form>
            <form id="user-passwd" class="inline"><select id="user-passwd-name" aria-label="account">\(names)</select>
              <input id="user-passwd-password" type="password" placeholder="new password" aria-label="new password"
                minlength="8" maxlength="72" required autocomplete="new-password">
              <button>Set password</button></form>
            <h2>Sessions</h2>
            \(sessions.isEmpty ? Self.noSessions : "<ul id=\"sessions\">\(sessionItems)</ul>")
            """
    }
}
