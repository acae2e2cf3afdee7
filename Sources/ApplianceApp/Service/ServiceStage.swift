import ServiceLifecycle

/// Where each of the appliance's services stands in the one ServiceGroup. The group starts them in this order and,
/// at graceful shutdown, stops them in the reverse one, so each stage is placed for both: what the later ones need
/// runs first, and what must hear of shutdown first comes last.
enum ServiceStage: Int, CaseIterable, Comparable, Sendable {
    /// The graph's bus: first up and last down, so an error while everything else stops is still seen.
    case graphWatch
    /// The frame-flow judge behind the systemd watchdog and `status.liveness`.
    case liveness
    /// Replaces an encoder that fails or stalls; needs the graph watched, outlives every recording.
    case encoderFailover
    /// udev's camera arrivals and departures.
    case cameraWatch
    /// The data folder's filesystem (a card pulled out, put back).
    case storageWatch
    /// The camera switcher: stopped after everything that records from the cameras.
    case cameras
    /// The wall clock against the boot clock: running before retention judges an age.
    case clock
    /// The uploader: stopped after the recorder finalised its last file (it may queue it), at a safe point.
    case backup
    /// What follows the live picture and sound: activity records, the preview overlay, scrub frames, motion,
    /// sound, and recording on their events.
    case picture
    /// Deletes by age and space, woken by every finished file.
    case retention
    /// The speaker: up before any command can ask for a sound, its sound stopped once none can.
    case speaker
    /// Finalises the recording in progress at shutdown, once no front end can send a command any more.
    case recorder
    /// The control socket (`appliance ctl`).
    case controlSocket
    /// Front ends built outside ApplianceApp: the web server.
    case frontEnds
    /// RTSP, MQTT, ONVIF events and WS-Discovery.
    case network
    /// Refuses commands from the moment shutdown begins, before any front end stops.
    case commandGate
    /// Shutters: evdev keys and GPIO lines.
    case inputs
    /// The recording light, and the speaker's feedback chimes.
    case lights
    /// systemd's notify socket: hears of shutdown first and says STOPPING=1 before anything stops.
    case serviceManager

    static func < (a: ServiceStage, b: ServiceStage) -> Bool { a.rawValue < b.rawValue }
}

/// The appliance's services, each put in its stage; `ordered` is the group's list. Services of one stage keep the
/// order they were added in.
struct ServicePlan {
    private var entries: [(stage: ServiceStage, service: any Service)] = []

    mutating func add(_ stage: ServiceStage, _ services: (any Service)?...) {
        add(stage, contentsOf: services.compactMap { $0 })
    }

    mutating func add(_ stage: ServiceStage, contentsOf services: [any Service]) {
        entries += services.map { (stage, $0) }
    }

    /// Start order (shutdown stops them from the last).
    var ordered: [any Service] { sortedEntries.map(\.service) }

    /// The stage of each service in `ordered`.
    var stages: [ServiceStage] { sortedEntries.map(\.stage) }

    private var sortedEntries: [(stage: ServiceStage, service: any Service)] {
        entries.enumerated().sorted { ($0.element.stage, $0.offset) < ($1.element.stage, $1.offset) }.map(\.element)
    }
}
