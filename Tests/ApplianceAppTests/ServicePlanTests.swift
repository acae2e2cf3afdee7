import ServiceLifecycle
import XCTest

@testable import ApplianceApp

/// The services' start order is `ServiceStage`'s, whatever order `Appliance.start` adds them in; graceful shutdown
/// stops them from the last (ServiceGroup's rule). What `Appliance.start` puts in each: ShutdownOrderTests.
final class ServicePlanTests: XCTestCase {
    private struct Named: Service, CustomStringConvertible {
        let description: String
        func run() async throws {}
    }

    func testServicesStartInTheirStagesOrderAndKeepTheirOrderWithinAStage() {
        var plan = ServicePlan()
        plan.add(.serviceManager, Named(description: "notifier"))
        plan.add(.recorder, Named(description: "recorder"))
        plan.add(.graphWatch, Named(description: "graph"))
        plan.add(.picture, contentsOf: [Named(description: "activity"), Named(description: "motion")])
        plan.add(.backup, nil)  // off: nothing added
        plan.add(.commandGate, Named(description: "gate"))
        plan.add(.picture, Named(description: "sound"))
        XCTAssertEqual(
            plan.ordered.map { "\($0)" }, ["graph", "activity", "motion", "sound", "recorder", "gate", "notifier"])
        XCTAssertEqual(
            plan.stages, [.graphWatch, .picture, .picture, .picture, .recorder, .commandGate, .serviceManager])
    }
}
