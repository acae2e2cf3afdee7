/// Whether the machine can carry every channel's object detector beside capture and encoding: each detector may use
/// its `[objects] cpu_budget` of one core (0: no budget, so up to the one core its thread can take), and together
/// they may promise at most `share` of the machine's cores; the rest is the cameras', the encoders' and the daemon's.
/// A channel that would go past it is refused at start with one line, rather than started to starve the encoders.
/// The first channel with a detector is always admitted: a config of one channel runs as it always did.
package enum DetectorAdmission {
    /// The part of the machine's cores the detectors may take together.
    package static let share = 0.5

    package struct Refusal: Error, CustomStringConvertible {
        package let description: String
    }

    /// The most one detector can take: its budget, or its one thread without one.
    package static func demand(budget: Double) -> Double { budget > 0 ? min(budget, 1) : 1 }

    /// Admits the channels that run object detection (`budgets`: each one's `cpu_budget`, in order) on `cores`.
    package static func check(_ budgets: [(channel: String, budget: Double)], cores: Int) throws(Refusal) {
        let limit = share * Double(max(1, cores))
        var promised = 0.0
        for (index, entry) in budgets.enumerated() {
            let need = demand(budget: entry.budget)
            guard index == 0 || promised + need <= limit + 1e-9 else {
                let asked = entry.budget > 0 ? "cpu_budget \(entry.budget) of a core" : "no cpu_budget (a whole core)"
                throw Refusal(
                    description: """
                        channel \(entry.channel) refused: its object detector (\(asked)) would bring the \
                        detectors of \(index + 1) channels to \(Self.format(promised + need)) cores, more than \
                        \(Self.format(limit)) (half of this machine's \(cores)): lower [objects] cpu_budget, or \
                        record fewer channels with detection
                        """)
            }
            promised += need
        }
    }

    private static func format(_ cores: Double) -> String {
        cores == cores.rounded() ? "\(Int(cores))" : "\((cores * 100).rounded() / 100)"
    }
}
