import Logging

/// What every domain shares: the configuration, the data folder and its library, the live graph, the event hub,
/// health and the logger. Built once by `Appliance.start`; each domain adds only the parts that are its own.
struct Shared: Sendable {
    let config: ApplianceConfig
    /// The data folder and the recordings database in it.
    let data: DataDirectory, library: Library
    let graph: CaptureGraph
    /// Where domains say what happened, what went wrong, and what they are doing.
    let events: EventHub, health: Health, logger: Logger
}
