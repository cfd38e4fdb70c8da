import AttestVocabulary

extension SignalSchema {
    /// The schema as a Markdown table: fixed signals, then the velocity, distinct-count and attribute families.
    public static func markdownTable() -> String {
        var lines = ["| signal | type | meaning |", "|---|---|---|"]
        for signal in fixed {
            lines.append("| `\(signal.name)` | \(signal.type.rawValue) | \(signal.summary) |")
        }
        let events = velocityEvents.map { "`\($0.name)` (\($0.summary))" }.joined(separator: ", ")
        let dimensions = velocityDimensions.map { "`\($0.name)`" }.joined(separator: ", ")
        lines.append("| `velocity.<event>.<per>.<window>` | number | events in the window ending now; event: \(events); per: \(dimensions); window: whole minutes from `1m` to `30d` (`15m`, `1h`, `24h`, `7d`); missing when the request lacks that key, user, device or IP |")
        let plurals = VelocityDimension.allCases.map { "`\($0.plural)`" }.joined(separator: ", ")
        lines.append("| `distinct.<counted>.<per>.<window>` | number | how many different \(plurals) (counted) were seen with this \(dimensions) (per, another subject) in the window ending now, the request's own included, to the minute: `distinct.users.device.24h` is the users of this device in the last 24 hours; a count stops at \(DistinctCount.maximum); seen means in a verdict (a score request or an accepted assertion) or a registered attestation; window: as velocity's; missing when the request lacks the per subject |")
        lines.append("| `attributes.<name>` | declared | a custom attribute the gateway sends, declared with its type under `attributes:` in a rule file; missing if not sent |")
        return lines.joined(separator: "\n")
    }
}

extension SignalSchema {
    /// `docs/reference/signals.md`: ``markdownTable()`` under a title, printed by `attestguard reference signals` (a
    /// test holds the committed page equal to this).
    public static func referencePage() -> String {
        """
        # Signals

        Every signal a rule can read, with its type; a signal the request cannot give is missing, and the rule language
        says what a comparison with a missing value does ([the analysts' guide](../analysts.md#risk-rules)).

        This page is generated: `attestguard reference signals > docs/reference/signals.md`.

        \(markdownTable())

        """
    }
}
