import GStreamerKit

/// Where a channel that stores its network camera's H.264 as sent takes it (`ApplianceConfig.storesAsSent`): the
/// live graph's appsrc in front of the parser and the video tee, and whether the camera's receiver decodes every
/// frame (detection or a preview need them) or only keyframes (thumbnails, snapshots and scrubbing need no more).
package struct AsSentOutput: Sendable {
    let input: Element
    let decodeEveryFrame: Bool
}
