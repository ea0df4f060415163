extension Duration {
    /// The duration in seconds, fractions included: for timeouts, log lines and reports of a run.
    public var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
