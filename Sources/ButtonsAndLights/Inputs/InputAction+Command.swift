import ApplianceBase
import ApplianceProtocol
import Settings

extension ApplianceConfig.InputAction {
    /// The command a button's action sends, through the same entry point as every front end. `hold` has none of
    /// its own: its hold start and end are `record.start` and `record.stop` (see `InputService.command(for:)`).
    /// `channel`: the one the button names (nil: every channel; the first for a snapshot and the next camera).
    package func command(channel: String? = nil) -> Command {
        switch self {
        case .toggle: .recordToggle(title: nil, channel: channel)
        case .hold: .recordStart(title: nil, channel: channel)
        case .snapshot: .snapshot(channel: channel)
        case .protect: .protect(before: Command.defaultProtectWindow, after: Command.defaultProtectWindow)
        case .nextCamera: .switchCamera(.next(channel: channel))
        case .stop: .recordStop(title: nil, channel: channel)
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
        case .press: (action, action.command(channel: channel))
        case .longPress: (longPressAction ?? action, (longPressAction ?? action).command(channel: channel))
        case .doublePress: (doublePressAction ?? action, (doublePressAction ?? action).command(channel: channel))
        case .holdStart: (.hold, .recordStart(title: nil, channel: channel))
        case .holdEnd: (.hold, .recordStop(title: nil, channel: channel))
        }
    }
}
