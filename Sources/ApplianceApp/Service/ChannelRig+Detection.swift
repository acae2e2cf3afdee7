import ApplianceBase
import ApplianceProtocol
import Engine
import Logging
import ServiceLifecycle

extension ChannelRig {
    /// Its motion and object detection on its own picture, the activity they make (named by the channel, its pictures
    /// its own), and recording on its own events (its `trigger`): the first channel's counterparts, in its scope.
    func detectionServices(
        activity first: ActivityLog, events: EventHub, logger: Logger,
        perform: @escaping @Sendable (Command) async throws(ApplianceError) -> CommandResult
    ) async -> [any Service] {
        var logger = logger
        logger[metadataKey: "channel"] = "\(name)"
        let (graph, cameras) = (self.graph, self.cameras)
        let pictures = ActivityPictures(data: first.pictures.data, latestFrame: { graph.latestFrame }, channel: name)
        let activity = ActivityLog(clips: first.clips, pictures: pictures, activeCamera: { await cameras.activeName })
        return Appliance.detectionServices(
            graph: graph, config: config, events: events, logger: logger, activity: activity,
            camera: await cameras.activeName, scope: .other(name, cameras: graph.cameraNames), perform: perform)
    }
}
