/// Reads `[[input]]` and `[[output]]` tables. Keys that belong to the other kind are errors (a `key` on a GPIO
/// button is a mistake, not something to ignore), and so are unknown key names and actions, each naming its key.
enum DeviceConfigReader {
    /// `channels`: the channel names there are (`channel` must be one of them).
    package static func input(_ t: inout TableReader, index: Int, channels: [String]) throws -> ApplianceConfig.Input {
        var i = ApplianceConfig.Input()
        i.label = try t.name("label", "input\(index)")
        i.kind = try t.choice("kind", nil, ApplianceConfig.Input.Kind.self)
        let evdevKeys = ["device", "name", "key", "grab"]
        let gpioKeys = ["chip", "line", "active_low", "bias", "debounce_ms"]
        for key in i.kind == .evdev ? gpioKeys : evdevKeys where t.has(key) {
            throw t.error(key, "only for kind = \"\(i.kind == .evdev ? "gpio" : "evdev")\" inputs")
        }
        switch i.kind {
        case .evdev:
            i.device = try t.string("device", "")
            i.deviceName = try t.string("name", "")
            guard i.device.isEmpty != i.deviceName.isEmpty else {
                throw t.error(
                    i.device.isEmpty ? "device" : "name",
                    "an evdev input needs either device (a path) or name (the device's name), not both")
            }
            i.key = try t.string("key", i.key)
            guard let code = KeyCodes.byName[i.key] else {
                throw t.error(
                    "key",
                    """
                    unknown key name '\(i.key)' (names as in linux/input-event-codes.h: KEY_SPACE, KEY_RECORD, \
                    BTN_0, …)
                    """
                )
            }
            i.keyCode = code
            i.grab = try t.bool("grab", i.grab)
        case .gpio:
            i.chip = try t.string("chip", "")
            if i.chip.isEmpty { throw t.error("chip", "a gpio input needs chip (/dev/gpiochipN or the chip's label)") }
            i.line = try t.lineName("line")
            i.activeLow = try t.bool("active_low", i.activeLow)
            i.bias = try t.choice("bias", i.bias, ApplianceConfig.Input.Bias.self)
            i.debounceMs = try t.int("debounce_ms", i.debounceMs, 0...1000)
        }
        i.action = try t.choice("action", i.action, ApplianceConfig.InputAction.self)
        i.longPressAction = try t.optionalChoice("long_press_action", ApplianceConfig.InputAction.self)
        i.longPressMs = try t.int("long_press_ms", i.longPressMs, 100...60_000)
        i.doublePressAction = try t.optionalChoice("double_press_action", ApplianceConfig.InputAction.self)
        i.doublePressMs = try t.int("double_press_ms", i.doublePressMs, 50...2000)
        i.channel = try t.channelName(channels)
        for key in ["long_press_action", "double_press_action"] where t.has(key) {
            if (key == "long_press_action" ? i.longPressAction : i.doublePressAction) == .hold {
                throw t.error(key, "hold is a button's own action (records while held), not a long or double press")
            }
            if i.action == .hold {
                throw t.error(
                    key,
                    "action = \"hold\" records while the button is held; it cannot also have a long or double press")
            }
        }
        try t.finish()
        return i
    }

    /// `channels`: the channel names there are (`channel` must be one of them).
    package static func output(_ t: inout TableReader, index: Int, channels: [String]) throws -> ApplianceConfig.Output
    {
        var o = ApplianceConfig.Output()
        o.label = try t.name("label", "output\(index)")
        o.kind = try t.choice("kind", nil, ApplianceConfig.Output.Kind.self)
        o.role = try t.choice("role", o.role, ApplianceConfig.Output.Role.self)
        for key in o.kind == .led ? ["chip", "line"] : ["led"] where t.has(key) {
            throw t.error(key, "only for kind = \"\(o.kind == .led ? "gpio" : "led")\" outputs")
        }
        switch o.kind {
        case .led:
            o.led = try t.string("led", "")
            if o.led.isEmpty {
                throw t.error("led", "an led output needs led (a name under /sys/class/leds, or an LED folder's path)")
            }
        case .gpio:
            o.chip = try t.string("chip", "")
            if o.chip.isEmpty { throw t.error("chip", "a gpio output needs chip (/dev/gpiochipN or the chip's label)") }
            o.line = try t.lineName("line")
        }
        o.activeLow = try t.bool("active_low", o.activeLow)
        o.channel = try t.channelName(channels)
        try t.finish()
        return o
    }

    static func checkUniqueLabels(_ config: ApplianceConfig, file: String) throws {
        var seen = Set<String>()
        for label in config.inputs.map(\.label) + config.outputs.map(\.label) where !seen.insert(label).inserted {
            throw ConfigError(
                file: file, line: nil, key: "label", message: "two inputs or outputs are labelled '\(label)'")
        }
    }
}

extension TableReader {
    /// `channel = "rear"` on an input or output: one of `channels`, or nil when the key is not there.
    mutating func channelName(_ channels: [String]) throws -> String? {
        guard has("channel") else { return nil }
        let channel = try string("channel", "")
        guard channels.contains(channel) else {
            throw error(
                "channel", "no [[channel]] is named '\(channel)' (channels: \(channels.joined(separator: ", ")))")
        }
        return channel
    }

    /// A value of a string enum; `fallback` nil makes the key required.
    package mutating func choice<E: RawRepresentable & CaseIterable>(_ key: String, _ fallback: E?, _: E.Type) throws
        -> E where E.RawValue == String
    {
        if fallback == nil, !has(key) {
            throw error(key, "missing (one of: \(E.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        return try oneOfCases(key, try string(key, fallback?.rawValue ?? ""))
    }

    mutating func optionalChoice<E: RawRepresentable & CaseIterable>(_ key: String, _: E.Type) throws -> E?
    where E.RawValue == String {
        guard has(key) else { return nil }
        return try oneOfCases(key, try string(key, ""))
    }

    private func oneOfCases<E: RawRepresentable & CaseIterable>(_ key: String, _ raw: String) throws -> E
    where E.RawValue == String {
        guard let value = E(rawValue: raw) else {
            throw error(key, "unknown value '\(raw)' (one of: \(E.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        return value
    }

    /// A GPIO line: an offset (a TOML integer or digits) or a line name.
    mutating func lineName(_ key: String) throws -> String {
        if has(key), let offset = try? int(key, 0, 0...4095) { return String(offset) }
        let s = try string(key, "")
        if s.isEmpty { throw error(key, "needs a line: its offset (17) or its name (\"GPIO17\")") }
        return s
    }
}
