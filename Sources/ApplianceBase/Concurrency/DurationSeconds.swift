extension Duration {
    /// In seconds, as a Double (for messages and reports).
    package var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
