import ControlSocket
import Supervision
import XCTest

@testable import ApplianceApp

/// The order `Appliance.start` gives its services, as built (graceful shutdown stops them from the last): what
/// shutdown relies on, checked on the services themselves rather than on the stages' declaration.
final class ShutdownOrderTests: XCTestCase {
    func testShutdownRefusesCommandsFirstFinalisesAfterTheFrontEndsAndStopsTheGraphWatcherLast() async throws {
        let app = try await TestAppliance()
        defer { app.removeDirectory() }
        let stopping = Array(app.appliance.serviceOrder.reversed())
        try await app.stop()
        func position(_ name: String) throws -> Int {
            try XCTUnwrap(stopping.firstIndex(of: name), "\(name) is not among the services: \(stopping)")
        }
        // Commands are refused before the socket stops, and the recording is finalised only once no front end can
        // send a command any more.
        XCTAssertLessThan(try position("CommandGate"), try position("ControlServer"), "\(stopping)")
        XCTAssertLessThan(try position("ControlServer"), try position("RecorderService"), "\(stopping)")
        // The cameras stop after what records from them; the clock after retention, which judges ages by it.
        XCTAssertLessThan(try position("RecorderService"), try position("CameraSwitcher"), "\(stopping)")
        XCTAssertLessThan(try position("RetentionService"), try position("ClockWatch"), "\(stopping)")
        // The graph's bus is watched until the end, so that an error while everything else stops is still seen.
        XCTAssertEqual(stopping.last, "GraphWatcher", "\(stopping)")
    }
}
