import Foundation
import Settings

/// Check 4a: whether the service can use its devices. The packaged service runs as the system user `appliance`,
/// in the groups video, audio, input and gpio (packaging/sysusers); when that user exists its membership and its
/// access to each node decide, otherwise the user running doctor does (access(2) on each node).
enum PermissionsCheck {
    static let name = "permissions"
    /// The groups that own the device nodes an appliance uses.
    static let deviceGroups = ["video", "audio", "input", "gpio"]

    struct Node: Sendable, Equatable {
        var node: DeviceNode
        /// The config uses it (a camera, the microphone); unconfigured GPIO and input nodes only warn.
        var configured: Bool
    }

    /// The configured camera and capture nodes that exist, then every GPIO chip and input event node.
    static func nodes(for config: ApplianceConfig) -> [Node] {
        var paths: [(String, Bool)] = []
        for camera in config.cameras where ["auto", "v4l2"].contains(camera.source) {
            paths.append((camera.device, true))
        }
        if ["auto", "alsa"].contains(config.audio.source) {
            paths += MicrophoneCheck.captureNodes().map { ($0, true) }
        }
        for (folder, prefix) in [("/dev", "gpiochip"), ("/dev/input", "event")] {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
            paths += names.filter { $0.hasPrefix(prefix) }.sorted().map { ("\(folder)/\($0)", false) }
        }
        var seen = Set<String>()
        return paths.compactMap { path, configured in
            guard seen.insert(path).inserted, let node = DeviceNode.at(path) else { return nil }
            return Node(node: node, configured: configured)
        }
    }

    static func run(_ config: ApplianceConfig) -> DoctorCheck {
        let groups = Dictionary(
            uniqueKeysWithValues: deviceGroups.compactMap { name in UserAccount.groupID(name).map { (name, $0) } })
        return judge(
            nodes: nodes(for: config), service: UserAccount.named(UserAccount.serviceUserName),
            current: UserAccount.current(), groups: groups,
            currentCanUse: { access($0, R_OK | W_OK) == 0 })
    }

    /// What the check found, gathered into one verdict.
    struct Findings {
        var failures: [String] = []
        var warnings: [String] = []
        var fixes: [String] = []
        var notes: [String] = []

        /// A configured device is a failure; one that is merely present, a warning.
        mutating func problem(_ text: String, configured: Bool) {
            if configured { failures.append(text) } else { warnings.append(text) }
        }

        func verdict(name: String, restart: Bool) -> DoctorCheck {
            var uniqueFixes: [String] = []
            for fix in fixes where !uniqueFixes.contains(fix) { uniqueFixes.append(fix) }
            let fix = uniqueFixes.joined(separator: "; ") + (restart ? ", then restart the service" : "")
            if !failures.isEmpty { return .fail(name, (failures + warnings).joined(separator: "; "), fix: fix) }
            if !warnings.isEmpty { return .warn(name, (warnings + notes).joined(separator: "; "), fix: fix) }
            return .pass(name, notes.joined(separator: "; "))
        }
    }

    /// The verdict, from what `run` gathered (separate so the logic can be tested with made-up users and nodes).
    static func judge(
        nodes: [Node], service: UserAccount?, current: UserAccount, groups: [String: gid_t],
        currentCanUse: (String) -> Bool
    ) -> DoctorCheck {
        var findings = Findings()
        let user = service ?? current
        var missingGroups = Set<gid_t>()
        if let service {
            missingGroups = judgeGroups(of: service, nodes: nodes, groups: groups, into: &findings)
        } else {
            findings.notes.append(
                "no service user \(UserAccount.serviceUserName): judged for \(current.name), who runs doctor")
        }
        let unusable = nodes.filter { entry in
            !(service.map { entry.node.readWrite(uid: $0.uid, groups: $0.groups) } ?? currentCanUse(entry.node.path))
        }
        // A node owned by a group the service user is missing was reported with the group.
        for entry in unusable where !missingGroups.contains(entry.node.gid) {
            findings.problem(
                "\(user.name) cannot read and write \(entry.node.path) (\(entry.node.ownership))",
                configured: entry.configured)
            if entry.node.mode & 0o060 != 0o060 || entry.node.gid == 0 {
                findings.fixes.append(
                    "give \(entry.node.path) a device group and mode 0660 with a udev rule (packaging/udev)")
            } else {
                findings.fixes.append("usermod -aG \(entry.node.group) \(user.name)")
            }
        }
        if let service, service.uid != current.uid {
            let blocked = nodes.filter { !currentCanUse($0.node.path) }.map(\.node.path)
            if !blocked.isEmpty {
                findings.notes.append(
                    "you (\(current.name)) cannot open \(blocked.joined(separator: ", ")); that is fine for the service"
                )
            }
        }
        findings.notes.append(
            nodes.isEmpty
                ? "no camera, capture, input or GPIO device nodes here"
                : "\(nodes.count - unusable.count) of \(nodes.count) device node\(nodes.count == 1 ? "" : "s") usable: "
                    + nodes.map { "\($0.node.path) (\($0.node.ownership))" }.joined(separator: ", "))
        return findings.verdict(name: name, restart: service != nil)
    }

    /// The device groups the service user is missing: a failure when one owns a configured device, a warning
    /// otherwise (a device of that group plugged in later). Answers the missing groups' ids.
    static func judgeGroups(
        of service: UserAccount, nodes: [Node], groups: [String: gid_t], into findings: inout Findings
    ) -> Set<gid_t> {
        var missingGroups = Set<gid_t>()
        let member = deviceGroups.filter { groups[$0].map(service.groups.contains) ?? false }
        findings.notes.append(
            member.isEmpty
                ? "service user \(service.name) is in none of the groups \(deviceGroups.joined(separator: ", "))"
                : "service user \(service.name) is in groups \(member.joined(separator: ", "))")
        for group in deviceGroups where !member.contains(group) {
            guard let gid = groups[group] else { continue }  // no such group on this system
            missingGroups.insert(gid)
            let owned = nodes.filter { $0.node.gid == gid }
            findings.problem(
                owned.contains(where: \.configured)
                    ? """
                    \(service.name) is not in group \(group), which owns \
                    \(owned.map(\.node.path).joined(separator: ", "))
                    """
                    : """
                    \(service.name) is not in group \(group): a device of that group plugged in later cannot \
                    be used
                    """,
                configured: owned.contains(where: \.configured))
            findings.fixes.append("usermod -aG \(group) \(service.name)")
        }
        return missingGroups
    }
}
