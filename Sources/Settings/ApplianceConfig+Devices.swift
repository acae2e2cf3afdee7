/// The device's own controls: `[[input]]` shutters (evdev keys and GPIO buttons) and `[[output]]` lights.
extension ApplianceConfig {
    /// What a button does. Each becomes a typed command sent through `Appliance.perform`, as every front end's.
    public enum InputAction: String, Sendable, Equatable, CaseIterable {
        /// Press starts a recording, press again stops it (`record.toggle`).
        case toggle
        /// Records while held: press starts, release stops. Only as `action`.
        case hold
        case snapshot
        /// The dashcam event lock (`protect` with its default window).
        case protect
        case nextCamera = "next_camera"
        case stop
    }

    /// One `[[input]]` table.
    public struct Input: Sendable, Equatable {
        public enum Kind: String, Sendable, Equatable, CaseIterable { case evdev, gpio }
        /// The line's bias (GPIO); `as-is` leaves what the board set up.
        public enum Bias: String, Sendable, Equatable, CaseIterable {
            case asIs = "as-is", pullUp = "pull-up", pullDown = "pull-down", disabled
        }

        /// How status, events and logs name this input (default `input<N>`, N counting from 0).
        public var label = ""
        public var kind = Kind.evdev
        /// evdev: the device node (preferably /dev/input/by-id/…); or `deviceName`.
        public var device = ""
        /// evdev (`name` in TOML): the first input device whose name (EVIOCGNAME) equals this.
        public var deviceName = ""
        /// evdev: the key's name, e.g. `KEY_SPACE`, `KEY_RECORD`, `BTN_0`; `keyCode` is its number.
        public var key = "KEY_SPACE"
        public var keyCode: UInt16 = 57
        /// evdev: take the device for this daemon alone (EVIOCGRAB), once no key is held.
        public var grab = false
        /// gpio: /dev/gpiochipN or the chip's label.
        public var chip = ""
        /// gpio: the line's offset ("17") or its name ("GPIO17").
        public var line = ""
        public var activeLow = false
        public var bias = Bias.asIs
        /// gpio: a level must hold this long to count (the kernel's debounce when it offers it, else in software).
        public var debounceMs = 20
        public var action = InputAction.toggle
        public var longPressAction: InputAction?
        public var longPressMs = 1000
        public var doublePressAction: InputAction?
        /// The most time between the first release and the second press of a double press.
        public var doublePressMs = 400
        /// The `[[channel]]` the button acts on (record, stop, snapshot, next camera); nil: every channel (the first
        /// for a snapshot and the next camera). Protecting is always every channel's.
        public var channel: String?

        public init() {}
    }

    /// One `[[output]]` table: a light.
    public struct Output: Sendable, Equatable {
        public enum Kind: String, Sendable, Equatable, CaseIterable { case gpio, led }
        public enum Role: String, Sendable, Equatable, CaseIterable {
            /// On while recording, off when idle, blinking on a fault.
            case recording
        }

        public var label = ""
        public var kind = Kind.led
        public var role = Role.recording
        /// gpio: /dev/gpiochipN or the chip's label, and the line's offset or name.
        public var chip = ""
        public var line = ""
        public var activeLow = false
        /// led: a name under /sys/class/leds, or the path of an LED-class folder (one with a `brightness` file).
        public var led = ""
        /// The `[[channel]]` whose recording it shows; nil: on while any channel records. Faults blink on every light.
        public var channel: String?

        public init() {}
    }
}
