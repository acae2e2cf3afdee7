import ApplianceProtocol
import Settings

/// A light an `[[output]]` drives: switched on or off, nothing more (blinking is the caller's, in software, the
/// same for every kind). Opening and writing say why they fail in one line; the caller retries.
package protocol Light: Sendable {
    /// What status shows as the output's device: the LED folder, or `gpiochip0 line 17`.
    var device: String { get }
    func set(_ on: Bool) throws(LightError)
    /// Releases the device (a GPIO line request); the light stays as last set.
    func close()
}

package struct LightError: Error, Equatable, CustomStringConvertible {
    package var description: String
    package init(_ description: String) { self.description = description }
}

package enum Lights {
    /// Opens the light `output` configures.
    package static func open(_ output: ApplianceConfig.Output) throws(LightError) -> any Light {
        switch output.kind {
        case .led: try LedClassLight(led: output.led)
        case .gpio: try GpioLight(output: output)
        }
    }

    /// What status shows as the device before (or without) opening it.
    package static func device(_ output: ApplianceConfig.Output) -> String {
        switch output.kind {
        case .led: LedClassLight.folder(output.led)
        case .gpio: "\(output.chip) line \(output.line)"
        }
    }
}
