import Accounts
import ApplianceBase
import ApplianceProtocol
import Backup
import Engine
import GStreamerKit

/// The one entry point behind `Appliance.perform`: each command goes to the domain that owns what it touches.
/// Every error leaves here as an `ApplianceError` with a stable code. Once shutdown begins, commands are refused.
struct CommandDispatcher: Sendable {
    let recorder: ChannelRecorders, clips: Clips, activity: ActivityLog
    let cameras: CameraSwitcher, devices: DeviceMonitor, snapshots: Snapshotter
    let status: StatusReporter, metrics: MetricsCollector, backup: BackupUploader?
    let retention: Retention
    let accounts: AccountBook
    let gate: CommandGate
    let discovery: CameraDiscoverer
    /// nil: no speaker (`[speaker] device = "none"`, or none found).
    let speaker: Speaker?

    func perform(_ command: Command) async throws(ApplianceError) -> CommandResult {
        guard gate.isOpen else { throw ApplianceError(.unavailable, "the appliance is shutting down") }
        do {
            return try await dispatch(command)
        } catch let error as ApplianceError {
            throw error
        } catch {
            throw ApplianceError(.internalError, "\(error)")
        }
    }

    /// `cameras`: every channel's cameras, each naming its channel; `active` is the first channel's.
    private func camerasReport(devices: [DeviceInfo]) async -> CamerasReport {
        var report = await cameras.report(devices: devices)
        for index in report.cameras.indices { report.cameras[index].channel = recorder.firstName }
        for rig in recorder.others {
            for var camera in await rig.cameras.report(devices: devices).cameras {
                camera.channel = rig.name
                report.cameras.append(camera)
            }
        }
        return report
    }

    /// `switch NAME` acts in the channel that has the camera (a camera is in one channel); `switch --next` in the
    /// first channel.
    /// The channel a switch acts on: the one with the camera named, or the one `--next` names (default: the first).
    private func switcher(for choice: Command.CameraChoice) throws -> CameraSwitcher {
        switch choice {
        case .named(let name):
            return recorder.others.first(where: { $0.graph.cameraNames.contains(name) })?.cameras ?? cameras
        case .next(let channel):
            return try recorder.rig(named: channel)?.cameras ?? cameras
        }
    }

    /// `record.start`, `record.stop` and `record.toggle`: every channel, or the one named.
    private func record(_ command: Command) async throws -> CommandResult {
        switch command {
        case .recordStart(let title, let channel):
            .recordingStarted(try await recorder.start(title: title, channel: channel))
        case .recordStop(let title, let channel):
            .recordingStopped(try await recorder.stop(title: title, channel: channel))
        case .recordToggle(let title, let channel):
            .toggled(try await recorder.toggle(title: title, channel: channel))
        default: throw ApplianceError(.internalError, "\(command.name) is not a record command")
        }
    }

    private func dispatch(_ command: Command) async throws -> CommandResult {
        switch command {
        case .ping: return .pong(Pong())
        case .version: return .version(VersionInfo(version: ApplianceVersion.current, gstreamer: GStreamer.version))
        case .status: return .status(await status.status())
        case .recordStart, .recordStop, .recordToggle: return try await record(command)
        case .snapshot(let channel):
            return .snapshot(try await snapshots.take(from: try recorder.graph(named: channel)))
        case .list(let page, let perPage): return .list(try await clips.list(page: page, perPage: perPage))
        case .listGrouped(let page, let perPage):
            return .list(try await clips.list(page: page, perPage: perPage, view: .grouped))
        case .listFiltered(let filter, let page, let perPage):
            return .list(try await clips.list(page: page, perPage: perPage, view: .filtered(filter)))
        case .listSegments(let group, let page, let perPage):
            return .list(try await clips.list(page: page, perPage: perPage, view: .segments(of: group)))
        case .info(let id): return .info(try await clips.info(id: id))
        case .rename(let id, let title): return .recording(try await clips.rename(id: id, title: title))
        case .delete(let id, let force): return .deleted(try await clips.delete(id: id, force: force))
        case .lock(let id): return .recording(try await clips.setLocked(id: id, locked: true))
        case .unlock(let id): return .recording(try await clips.setLocked(id: id, locked: false))
        case .cameras:
            let monitor = devices
            let present = try await blocking { monitor.devices.map(DeviceInfo.init) }  // asks every provider
            return .cameras(await camerasReport(devices: present))
        case .switchCamera(let choice): return .switched(try await (try switcher(for: choice)).switchTo(choice))
        case .discoverCameras(let request): return .discovered(await discovery.find(request))
        case .play(let request):
            guard let speaker else {
                throw ApplianceError(
                    .unavailable, "there is no speaker ([speaker] device = \"none\", or no playback device was found)")
            }
            return .played(try await speaker.play(request))
        case .backupStatus: return .backupStatus(await backup?.status() ?? .off)
        case .backupRetry(let id):
            guard let backup else { throw ApplianceError(.unavailable, "backup is off ([backup] url is empty)") }
            let resolved = id == nil ? nil : try await clips.resolve(id!).id
            return .backupRetry(RetryResult(requeued: try await backup.retry(recordingId: resolved)))
        case .protect(let before, let after):
            let result = try await clips.protect(before: before, after: after)
            await activity.pressed(result)
            return .protected(result)
        case .export(let request): return .exported(try await clips.export(request))
        case .metrics: return .metrics(await metrics.metrics())
        case .share(let id, let hours): return .shared(try await clips.share(id: id, hours: hours))
        case .shares: return .shares(try await clips.shares())
        case .unshare(let link): return .unshared(try await clips.unshare(link: link))
        case .activity(let filter): return .activity(try await activity.list(filter))
        case .activityShow(let id): return .activityDetail(try await activity.show(id: id))
        case .activityMark(let mark): return .activityMarked(try await activity.mark(mark))
        case .activityProtect(let id): return .protected(try await activity.protect(id: id))
        case .timeline(let from, let to, let channel):
            return .timeline(try await clips.timeline(from: from, to: to, channel: channel))
        case .timelineDays(let month): return .timelineDays(try await clips.timelineDays(month: month))
        case .users, .userAdd, .userPassword, .userRole, .userRemove, .userToken, .userRevokeTokens:
            return try await account(command)
        }
    }

    private func account(_ command: Command) async throws -> CommandResult {
        switch command {
        case .users: return .users(try await accounts.list())
        case .userAdd(let name, let role, let password):
            return .user(try await accounts.add(name: name, role: role, password: password))
        case .userPassword(let name, let password):
            return .user(try await accounts.setPassword(name: name, password: password))
        case .userRole(let name, let role): return .user(try await accounts.setRole(name: name, role: role))
        case .userRemove(let name): return .userRemoved(try await accounts.remove(name: name))
        case .userToken(let name): return .userToken(try await accounts.makeToken(name: name))
        case .userRevokeTokens(let name): return .user(try await accounts.revokeTokens(name: name))
        default: throw ApplianceError(.internalError, "\(command.name) is not an account command")
        }
    }
}
