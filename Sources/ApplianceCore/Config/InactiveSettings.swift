/// Settings the config accepts (so files written for later versions load) but that this build does not act on yet.
/// The daemon logs a warning for each one set away from its default, so nothing is silently ignored.
extension ApplianceConfig {
    public var inactiveSettings: [String] {
        let defaults = ApplianceConfig()
        var keys: [String] = []
        if web != defaults.web { keys.append("[web]") }
        return keys
    }
}
