/// The appliance's version: `appliance --version`, the `appliance_info` metric and the Debian package's default.
public enum ApplianceVersion {
    public static let current = "0.5.0"
}
