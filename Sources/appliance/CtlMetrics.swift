import ApplianceProtocol
import ArgumentParser

struct Metrics: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print counters and gauges in Prometheus text format (what the web dashboard serves at /metrics).")
    @OptionGroup var options: CtlOptions

    func run() {
        options.perform(.metrics) { (m: MetricsReport) in
            String(m.prometheusText.dropLast())  // print adds the last newline
        }
    }
}
