import ApplianceBase
import ApplianceProtocol
import Encoders
import Engine
import Foundation
import Logging
import ObjectDetection
import Settings

extension Appliance {
    /// `[video] encoder = "auto"` resolved (a trial per candidate, or this boot's earlier choice): the config the graph
    /// is built from names the chosen fragment, and the choice goes to `status`, metrics and the log.
    static func chooseEncoder(
        config: ApplianceConfig, data: DataDirectory, trials: any EncoderTrialRunner,
        logger: Logger
    ) async throws -> (ApplianceConfig, EncoderSelection) {
        let library: FragmentLibrary
        do {
            library = try FragmentLibrary.locate(configured: config.pipelinesDir)
        } catch {
            throw StartupError(description: "\(error)")
        }
        let selector = EncoderSelector(
            video: config.video, library: library, runner: trials,
            cache: EncoderChoiceCache(dataDir: data.root), logger: logger)
        let choice: EncoderChoice
        do {
            choice = try await selector.choose()
        } catch {
            throw StartupError(description: "\(error)")
        }
        var chosen = config
        chosen.video.encoder = choice.encoder
        return (chosen, EncoderSelection(selector: selector, choice: choice))
    }

    /// Every channel's demand on the encoder it would use (the first's choice; another's own when pinned), checked
    /// against the encoders' budgets before any graph starts (`EncoderAdmission`; a software encoder's by the CPU time
    /// its trial took), and the object detectors' budgets
    /// against the machine's cores (`DetectorAdmission`).
    static func admitChannels(_ views: [ApplianceConfig], first: EncoderSelection) throws {
        let library = first.selector.library
        let demands = views.enumerated().map { place, view in
            let name =
                place == 0 || view.video.encoder == ApplianceConfig.Video.autoEncoder
                ? first.current.encoder : view.video.encoder
            return EncoderAdmission.Demand(
                channel: view.channels.first?.name ?? ApplianceConfig.defaultChannelName, video: view.video,
                encoder: view.storesAsSent ? nil : EncoderCandidate.read(name, library: library))
        }
        let choice = first.current
        let trial = choice.trials.first { $0.name == choice.encoder }
        let video = views[0].video
        let measured = EncoderAdmission.TrialCost(trial, width: video.width, height: video.height)
        do {
            try EncoderAdmission.check(demands)
            try EncoderAdmission.checkSoftware(
                demands, measured: measured, cores: ProcessInfo.processInfo.activeProcessorCount)
        } catch {
            throw StartupError(description: error.description)
        }
        let detectors = views.filter(\.objects.enabled).map { view in
            (view.channels.first?.name ?? ApplianceConfig.defaultChannelName, view.objects.cpuBudget)
        }
        do {
            try DetectorAdmission.check(detectors, cores: ProcessInfo.processInfo.activeProcessorCount)
        } catch {
            throw StartupError(description: error.description)
        }
    }
}
