import ApplianceCore

/// The web dashboard as a front end of the appliance (`Appliance.start(frontEnds:)`).
public enum WebDashboard {
    /// Builds the web service from the appliance's context; none when `[web] listen = "off"`.
    public static let frontEnd: FrontEnd = { context in
        context.config.web.enabled ? try WebService(context: context) : nil
    }
}
