import ApplianceProtocol
import Foundation

extension EncoderAdmission {
    /// What a software encoder's trial measured: its CPU time a frame of so many macroblocks, which scales to any
    /// channel's size and rate. An upper bound: the trial's CPU time holds the test frames it made and decoded too,
    /// and a smooth test picture costs less to encode than a busy scene (the share below leaves room).
    package struct TrialCost: Sendable, Equatable {
        package var element: String
        package var msPerFrame: Double
        package var macroblocksPerFrame: Int

        /// A passed trial that measured its CPU time a frame, at `width`x`height`.
        package init?(_ trial: EncoderChoice.Trial?, width: Int, height: Int) {
            // Read back from the trial's child as JSON: a figure no frame could take is no measure.
            guard let trial, trial.result == .passed, let cpu = trial.cpuMsPerFrame, cpu.isFinite, cpu > 0,
                cpu < 60_000
            else { return nil }
            (element, msPerFrame) = (trial.element, cpu)
            macroblocksPerFrame = ((width + 15) / 16) * ((height + 15) / 16)
        }

        /// The cores encoding `demand`'s picture takes, by the trial.
        package func cores(for demand: Demand) -> Double {
            msPerFrame / 1000 / Double(max(1, macroblocksPerFrame)) * Double(demand.macroblocksPerSecond)
        }
    }

    /// The part of the machine's cores the software encoders may take together (the rest: capture, sound, the
    /// daemon, detection's own budget).
    package static let softwareShare = 0.8

    /// Admits the channels that encode with the measured software encoder (no budget of its own), in order: together
    /// at most `softwareShare` of `cores`. The first is always admitted (a one-channel config runs as it did); a
    /// channel with another software encoder, never tried, is not judged.
    package static func checkSoftware(_ demands: [Demand], measured: TrialCost?, cores: Int) throws(Refusal) {
        guard let measured else { return }
        let limit = softwareShare * Double(max(1, cores))
        var (taken, count) = (0.0, 0)
        for demand in demands {
            guard let encoder = demand.encoder, encoder.budget == nil, encoder.element == measured.element else {
                continue
            }
            let need = measured.cores(for: demand)
            if count > 0, taken + need > limit {
                throw Refusal(
                    description: """
                        channel \(demand.channel) refused: \(demand.width)x\(demand.height) at \(demand.framerate) fps \
                        with \(encoder.name) (\(encoder.element)) takes about \(format(need)) of a core (its trial: \
                        \(format(measured.msPerFrame)) ms of CPU a frame of \(measured.macroblocksPerFrame) \
                        macroblocks), which brings the software \
                        encoders to \(format(taken + need)) cores, more than \(format(limit)) \
                        (\(Int(softwareShare * 100)) % of this machine's \(cores)): lower its size or rate, or store a \
                        network camera as sent
                        """)
            }
            (taken, count) = (taken + need, count + 1)
        }
    }

    private static func format(_ value: Double) -> String { String(format: "%.2f", value) }
}
