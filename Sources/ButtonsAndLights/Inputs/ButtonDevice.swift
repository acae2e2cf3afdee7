/// A button's press or release, timed by the device's own clock in nanoseconds (evdev: the input_event's time,
/// CLOCK_MONOTONIC where the device accepts EVIOCSCLOCKID; GPIO: the line event's timestamp_ns). Gestures are
/// judged by these times, never by when the daemon happened to read them.
package struct ButtonEdge: Sendable, Equatable {
    package var pressed: Bool
    package var time: UInt64

    package init(pressed: Bool, time: UInt64) { (self.pressed, self.time) = (pressed, time) }
}

/// Why a button's device could not be opened. Either way the reader looks again later; neither stops the daemon.
package enum ButtonOpenError: Error, Equatable {
    /// Not there (yet): no such path, no device with that name, no such chip or line.
    case missing(String)
    /// There but unusable: permissions, a line another process holds, a failed ioctl.
    case failed(String)
}

/// An opened button device: one descriptor that `poll` watches and `read` drains in whole records.
/// Used by one reader thread only.
package protocol OpenButton: AnyObject {
    var fd: Int32 { get }
    /// Bytes per record read from `fd` (24 for `struct input_event`, 48 for `struct gpio_v2_line_event`).
    var recordSize: Int { get }
    /// Debouncing the reader must do in software (the kernel did not take it); nil when none is needed.
    var softwareDebounce: Duration? { get }
    /// A note for status on a device that works with a limitation (e.g. "grab not possible: not an input device").
    var note: String? { get }
    /// evdev with `grab`: whether the device is held alone; nil when no grab was asked for.
    var grabbed: Bool? { get }
    /// Decodes one record: nil when it is not about this button (another key, a SYN, a key repeat).
    func edge(from record: UnsafeRawBufferPointer) -> ButtonEdge?
    /// The device time of any record, also one that is no edge (evdev: a SYN, another key). Time moves on with it,
    /// so a window can expire on a later record as well as on the reader's timer. Defaults to nil (GPIO: every
    /// record is an edge).
    func time(of record: UnsafeRawBufferPointer) -> UInt64?
    /// Called after each batch of records (evdev takes a pending grab here, once no key is held).
    func afterBatch()
    func close()
}

extension OpenButton {
    package func time(of record: UnsafeRawBufferPointer) -> UInt64? { nil }
}

/// How to find and open one `[[input]]`'s device.
package protocol ButtonDevice: Sendable {
    /// What status shows as the input's device: a path, `name "…"`, `gpiochip0 line 17`.
    var description: String { get }
    func open() throws(ButtonOpenError) -> any OpenButton
}
