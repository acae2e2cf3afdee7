import ApplianceBase
import ApplianceProtocol
import Settings

extension ApplianceConfig.InputAction {
    /// The command a button's action sends, through the same entry point as every front end. `hold` has none of
    /// its own: its hold start and end are `record.start` and `record.stop` (see `InputService.command(for:)`).
    package var command: Command {
        switch self {
        case .toggle: .recordToggle(title: nil)
        case .hold: .recordStart(title: nil)
        case .snapshot: .snapshot()
        case .protect: .protect(before: Command.defaultProtectWindow, after: Command.defaultProtectWindow)
        case .nextCamera: .switchCamera(.next(channel: nil))
        case .stop: .recordStop(title: nil)
        }
    }
}

extension ApplianceConfig.Input {
    /// The gestures this input's button is to recognise.
    package var gestureRules: GestureRecognizer.Rules {
        let ms: UInt64 = 1_000_000
        return GestureRecognizer.Rules(
            hold: action == .hold,
            longPress: longPressAction == nil ? nil : UInt64(longPressMs) * ms,
            doublePress: doublePressAction == nil ? nil : UInt64(doublePressMs) * ms)
    }

    /// The action and command a recognised gesture stands for.
    package func command(for gesture: InputGesture.Gesture) -> (action: ApplianceConfig.InputAction, command: Command) {
        switch gesture {
        case .press: (action, action.command)
        case .longPress: (longPressAction ?? action, (longPressAction ?? action).command)
        case .doublePress: (doublePressAction ?? action, (doublePressAction ?? action).command)
        case .holdStart: (.hold, .recordStart(title: nil))
        case .holdEnd: (.hold, .recordStop(title: nil))
        }
    }
}
