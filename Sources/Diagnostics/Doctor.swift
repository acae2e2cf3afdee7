import ApplianceBase
import Encoders
import Engine
import Foundation
import GStreamerKit
import Settings

/// `appliance doctor`: what a user checks before trusting a device, as pass/warn/fail lines with the fix. It
/// loads the config as `appliance run` does and never takes the data folder's lock, so it runs beside a live
/// daemon as well as without one; the only thing it writes is a probe file in the data folder, removed at once.
/// Every blocking step has a deadline of a few seconds: a hung device or mount is reported, not waited for.
public enum Doctor {
    /// Loads the config (`nil`: the embedded default), applies `dataDir`, and runs every check. A config that
    /// does not load is a single failed check.
    /// `encoderTrials`: how `[video] encoder = "auto"` is resolved (the command: in child processes).
    public static func run(
        configPath: String?, dataDir: String?, encoderTrials: any EncoderTrialRunner = InProcessEncoderTrials()
    ) async -> DoctorReport {
        var config: ApplianceConfig
        do {
            config = try ConfigLoader.load(path: configPath)
        } catch {
            return DoctorReport(checks: [ConfigCheck.failed(error, path: configPath)])
        }
        if let dataDir { config.dataDir = dataDir }
        return await run(config: config, configPath: configPath, encoderTrials: encoderTrials)
    }

    /// Runs every check on a loaded config, in the order a user would fix things.
    public static func run(
        config: ApplianceConfig, configPath: String? = nil,
        encoderTrials: any EncoderTrialRunner = InProcessEncoderTrials()
    ) async -> DoctorReport {
        let fragments: Result<FragmentLibrary, any Error> = Result {
            try FragmentLibrary.locate(configured: config.pipelinesDir)
        }
        var checks = [ConfigCheck.loaded(config, path: configPath)]
        checks += await deviceChecks(config, fragments: fragments)
        checks += await storageChecks(config)
        checks += await encoderChecks(config, fragments: fragments, trials: encoderTrials)
        checks += await detectionChecks(config)
        checks += await networkChecks(config)
        return DoctorReport(checks: checks)
    }

    /// GStreamer, the cameras, the sound devices and the device nodes' permissions.
    static func deviceChecks(
        _ config: ApplianceConfig, fragments: Result<FragmentLibrary, any Error>
    ) async -> [DoctorCheck] {
        // GStreamer's first start scans every plugin; on a slow card that can take a while.
        var checks = [
            await DoctorDeadline.check(GStreamerCheck.name, seconds: 60, what: "GStreamer's plugin scan") {
                GStreamerCheck.run(config, fragments: fragments)
            }
        ]
        let devices: [CaptureDevice]? =
            config.cameras.contains(where: CameraCheck.wantsDeviceList)
            ? await DoctorDeadline.run("devices", seconds: 10) { DeviceMonitor().devices }
            : []
        for camera in config.cameras {
            checks.append(
                await DoctorDeadline.check(CameraCheck.name(camera), seconds: 20, what: "the camera \(camera.device)") {
                    CameraCheck.run(camera, video: config.video, fragments: fragments, devices: devices)
                })
        }
        checks.append(
            await DoctorDeadline.check(MicrophoneCheck.name, seconds: 5, what: "the sound devices") {
                MicrophoneCheck.run(config.audio, cameras: config.cameras)
            })
        checks.append(
            await DoctorDeadline.check(SpeakerCheck.name, seconds: 10, what: "the speaker") {
                SpeakerCheck.run(config.speaker)
            })
        checks.append(
            await DoctorDeadline.check(PermissionsCheck.name, seconds: 5, what: "the device nodes") {
                PermissionsCheck.run(config)
            })
        return checks
    }

    /// The data folder, its filesystem, the clock and the web's certificate.
    static func storageChecks(_ config: ApplianceConfig) async -> [DoctorCheck] {
        [
            await DoctorDeadline.check(DataFolderCheck.name, seconds: 5, what: "the data folder") {
                DataFolderCheck.run(dataDir: config.dataDir)
            },
            await DoctorDeadline.check(StorageCheck.name, seconds: 10, what: "the data folder's filesystem") {
                StorageCheck.run(config)
            },
            ClockCheck.run(),
            WebCertificateCheck.run(config),
        ]
    }

    /// The video encoder `auto` chooses (or the one configured) and the audio encoder.
    static func encoderChecks(
        _ config: ApplianceConfig, fragments: Result<FragmentLibrary, any Error>, trials: any EncoderTrialRunner
    ) async -> [DoctorCheck] {
        let choice = await EncoderCheck.choose(config, fragments: fragments, trials: trials)
        return [
            await DoctorDeadline.check(EncoderCheck.videoName, seconds: 30, what: "the video encoder") {
                EncoderCheck.video(config, fragments: fragments, choice: choice)
            },
            await DoctorDeadline.check(EncoderCheck.audioName, seconds: 30, what: "the audio encoder") {
                EncoderCheck.audio(config, fragments: fragments)
            },
        ]
    }

    /// Motion detection and the object detector.
    static func detectionChecks(_ config: ApplianceConfig) async -> [DoctorCheck] {
        [
            await DoctorDeadline.check(MotionCheck.name, seconds: 20, what: "motion detection") {
                MotionCheck.run(config)
            },
            await DoctorDeadline.check(ObjectsCheck.name, seconds: 30, what: "object detection") {
                ObjectsCheck.run(config)
            },
        ]
    }

    /// The backup target and the MQTT broker, each given 15 s to answer.
    static func networkChecks(_ config: ApplianceConfig) async -> [DoctorCheck] {
        [
            await DoctorDeadline.runAsync(BackupCheck.name, seconds: 15) { await BackupCheck.run(config.backup) }
                ?? .fail(
                    BackupCheck.name, "the WebDAV server did not answer within 15 s",
                    fix: "check [backup] url and the network"),
            await DoctorDeadline.runAsync(MQTTCheck.name, seconds: 15) { await MQTTCheck.run(config) }
                ?? .fail(
                    MQTTCheck.name, "the MQTT broker did not answer within 15 s",
                    fix: "check [mqtt] url and the network"),
        ]
    }
}
