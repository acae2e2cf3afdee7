/// Settings the config accepts (so files written for later versions load) but that this build does not act on yet.
/// The daemon logs a warning for each one set away from its default, so nothing is silently ignored. Every
/// setting is active in this build ([web] was the last).
extension ApplianceConfig {
    public var inactiveSettings: [String] { [] }
}
