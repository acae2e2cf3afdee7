import ApplianceCore

/// The web dashboard as a front end of the appliance (`Appliance.start(frontEnds:)`).
public enum WebDashboard {
    /// Builds the web service from the appliance's context; nil work when `[web] listen = "off"`.
    public static let frontEnd: FrontEnd = { context in try WebService(context: context) }
}
