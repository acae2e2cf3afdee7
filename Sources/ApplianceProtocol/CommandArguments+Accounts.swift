import Foundation

/// The account commands' arguments: `name`, and `role` (`admin` or `viewer`) and `password` where they apply.
extension Command {
    static func account(_ wireName: Name, _ args: Arguments) throws(ApplianceError) -> Command {
        switch wireName {
        case .users: return try args.none(.users)
        case .userAdd:
            try args.only(["name", "role", "password"])
            return .userAdd(
                name: try args.requiredString("name"), role: try role(args),
                password: Secret(try args.requiredString("password")))
        case .userPassword:
            try args.only(["name", "password"])
            return .userPassword(
                name: try args.requiredString("name"), password: Secret(try args.requiredString("password")))
        case .userRole:
            try args.only(["name", "role"])
            return .userRole(name: try args.requiredString("name"), role: try role(args))
        case .userRemove:
            try args.only(["name"])
            return .userRemove(name: try args.requiredString("name"))
        case .userToken:
            try args.only(["name"])
            return .userToken(name: try args.requiredString("name"))
        case .userRevokeTokens:
            try args.only(["name"])
            return .userRevokeTokens(name: try args.requiredString("name"))
        default: throw ApplianceError(.internalError, "\(wireName.rawValue) is not an account command")
        }
    }

    private static func role(_ args: Arguments) throws(ApplianceError) -> UserRole {
        let text = try args.requiredString("role")
        guard let role = UserRole(rawValue: text) else {
            throw ApplianceError(.badRequest, "args.role must be admin or viewer, found \"\(text)\"")
        }
        return role
    }
}
