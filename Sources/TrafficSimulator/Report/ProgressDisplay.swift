public import Foundation

/// Shows a run's tally while it runs, on standard error: on a terminal a view redrawn in place twice a second,
/// otherwise one line every few seconds (logs and CI stay readable).
public struct ProgressDisplay: Sendable {
    let tally: TrafficTally
    let interactive: Bool
    let lineInterval: Duration

    /// - Parameter interactive: redraw in place; defaults to whether standard error is a terminal.
    public init(tally: TrafficTally, interactive: Bool = isatty(STDERR_FILENO) == 1, lineInterval: Duration = .seconds(5)) {
        self.tally = tally
        self.interactive = interactive
        self.lineInterval = lineInterval
    }

    /// Draws until cancelled, then once more with the final counts.
    public func run() async {
        let started = ContinuousClock.now
        var drawnLines = 0
        while true {
            let cancelled = Task.isCancelled
            let snapshot = await tally.current
            let elapsed = Int((ContinuousClock.now - started).components.seconds)
            if interactive {
                // Cut to the terminal's width: a wrapped line would throw off the redraw below.
                let width = Self.terminalWidth()
                let lines = Self.view(snapshot, elapsed: elapsed).map { $0.count < width ? $0 : String($0.prefix(width - 2)) + "…" }
                // Up over the last view, then each line cleared and written again.
                var text = drawnLines > 0 ? "\u{1B}[\(drawnLines)A" : ""
                for line in lines { text += "\u{1B}[2K" + line + "\n" }
                FileHandle.standardError.write(Data(text.utf8))
                drawnLines = lines.count
            } else {
                FileHandle.standardError.write(Data((Self.line(snapshot, elapsed: elapsed) + "\n").utf8))
            }
            if cancelled { return }
            try? await Task.sleep(for: interactive ? .milliseconds(500) : lineInterval)
        }
    }

    /// The columns of the terminal on standard error (80 when it does not say).
    static func terminalWidth() -> Int {
        var size = winsize()
        guard ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 10 else { return 80 }
        return Int(size.ws_col)
    }

    /// The interactive view: one line of totals, one per persona, one of rules, one of receipts.
    static func view(_ snapshot: TrafficTally.Snapshot, elapsed: Int) -> [String] {
        var lines = ["\(elapsed)s  \(snapshot.requests) requests  \(snapshot.keysAttested) keys attested"]
        for persona in Persona.allCases {
            guard let outcomes = snapshot.outcomes[persona] else { continue }
            lines.append("  " + persona.rawValue.padding(toLength: 28, withPad: " ", startingAt: 0) + counts(outcomes))
        }
        lines.append("  rules firing: " + (snapshot.rulesFiring.isEmpty ? "none yet" : counts(snapshot.rulesFiring)))
        lines.append("  receipts redeemed: \(snapshot.receiptsRedeemed)" + metrics(snapshot))
        return lines
    }

    /// The one-line form for logs.
    static func line(_ snapshot: TrafficTally.Snapshot, elapsed: Int) -> String {
        var parts = ["\(elapsed)s: \(snapshot.requests) requests", "\(snapshot.keysAttested) keys"]
        for persona in Persona.allCases {
            guard let outcomes = snapshot.outcomes[persona] else { continue }
            parts.append("\(persona.rawValue) " + counts(outcomes))
        }
        if !snapshot.rulesFiring.isEmpty { parts.append("rules " + counts(snapshot.rulesFiring)) }
        parts.append("receipts \(snapshot.receiptsRedeemed)" + metrics(snapshot))
        return parts.joined(separator: " · ")
    }

    private static func counts(_ values: [String: Int]) -> String {
        values.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
    }

    private static func metrics(_ snapshot: TrafficTally.Snapshot) -> String {
        guard !snapshot.riskMetrics.isEmpty else { return "" }
        return " (risk metric: " + snapshot.riskMetrics.sorted { $0.key < $1.key }.map { "\($0.key) on \($0.value) keys" }.joined(separator: ", ") + ")"
    }
}
