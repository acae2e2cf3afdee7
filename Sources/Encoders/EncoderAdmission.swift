import Foundation
import Settings

/// Whether the machine can carry every channel before any starts: a hardware encoder has a budget in macroblocks a
/// second (its fragment says so: `# budget: 245760 macroblocks/s`), and the channels that share it may not ask for
/// more. A channel that does not fit is refused at start with one line naming the budget, rather than started to
/// drop frames later. Encoders whose fragments name no budget (the software ones, a desktop GPU's) are not limited
/// here.
package enum EncoderAdmission {
    /// One channel's demand: its picture and the encoder it would use (nil: it stores its camera's stream as sent).
    package struct Demand: Sendable, Equatable {
        package var channel: String
        package var width: Int
        package var height: Int
        package var framerate: Int
        package var encoder: EncoderCandidate?

        package init(channel: String, video: ApplianceConfig.Video, encoder: EncoderCandidate?) {
            (self.channel, self.width, self.height, self.framerate) = (
                channel, video.width, video.height, video.framerate
            )
            self.encoder = encoder
        }

        /// H.264's 16x16 macroblocks a second (a partial block at an edge counts whole, as encoders count it).
        package var macroblocksPerSecond: Int { ((width + 15) / 16) * ((height + 15) / 16) * framerate }
    }

    package struct Refusal: Error, CustomStringConvertible {
        package let description: String
    }

    /// Admits the channels in order; the first that does not fit is refused with its one line.
    package static func check(_ demands: [Demand]) throws(Refusal) {
        var taken: [String: [(channel: String, load: Int)]] = [:]  // encoder element → what earlier channels took
        for demand in demands {
            guard let encoder = demand.encoder, let budget = encoder.budget else { continue }
            let earlier = taken[encoder.element] ?? []
            let used = earlier.reduce(0) { $0 + $1.load }
            let need = demand.macroblocksPerSecond
            if used + need > budget {
                let others =
                    earlier.isEmpty
                    ? "" : ", \(used) of them taken by \(earlier.map(\.channel).joined(separator: " and "))"
                throw Refusal(
                    description: """
                        channel \(demand.channel) refused: \(demand.width)x\(demand.height) at \(demand.framerate) \
                        fps is \(need) macroblocks a second, and \(encoder.name) (\(encoder.element)) carries \
                        \(budget) a second\(others): lower its size or rate, or give it another encoder
                        """)
            }
            taken[encoder.element] = earlier + [(demand.channel, need)]
        }
    }
}

extension EncoderCandidate {
    /// The macroblocks a second its fragment says the encoder carries (`# budget: N macroblocks/s`), nil when it
    /// says none.
    package var budget: Int? {
        for line in fragment.split(separator: "\n") {
            let text = line.trimmingCharacters(in: .whitespaces)
            guard text.hasPrefix("#") else { continue }
            let words = text.dropFirst().split(whereSeparator: \.isWhitespace)
            if words.count >= 3, words[0] == "budget:", words[2] == "macroblocks/s", let value = Int(words[1]) {
                return value
            }
        }
        return nil
    }
}
