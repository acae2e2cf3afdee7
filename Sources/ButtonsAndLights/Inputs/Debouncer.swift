/// Software debounce for a button whose kernel driver does not debounce (a GPIO line on a chip without it): a
/// level counts only once it has held for `debounce`. Contacts bounce for a few milliseconds on each press and
/// release; without this one press would be read as several.
///
/// Like `GestureRecognizer`, a pure value driven by the edges' timestamps and `advance(to:)`. A settled edge comes
/// out stamped with the time it settled (its own time + `debounce`): both press and release are late by the same
/// amount, so a hold's length is kept, and time never goes backwards for the recognizer behind it.
package struct Debouncer: Sendable, Equatable {
    package let debounce: UInt64
    /// The level that counts (starts released).
    package private(set) var stable = false
    /// A different level seen, and since when; it counts if it holds for `debounce`.
    private var pending: ButtonEdge?

    package init(debounce: UInt64) { self.debounce = debounce }

    package var nextDeadline: UInt64? { pending.map { $0.time + debounce } }

    /// Settles a pending level whose time has come.
    package mutating func advance(to time: UInt64) -> [ButtonEdge] {
        guard let deadline = nextDeadline, deadline <= time else { return [] }
        stable.toggle()
        pending = nil
        return [ButtonEdge(pressed: stable, time: deadline)]
    }

    /// A raw level change; returns the edges that settled meanwhile.
    package mutating func feed(_ edge: ButtonEdge) -> [ButtonEdge] {
        if debounce == 0 {
            guard edge.pressed != stable else { return [] }
            stable = edge.pressed
            return [edge]
        }
        let settled = advance(to: edge.time)
        if edge.pressed == stable {
            pending = nil  // bounced back before it counted
        } else if pending == nil {
            pending = edge
        }  // else: the same level again, keep counting from its first time
        return settled
    }
}
