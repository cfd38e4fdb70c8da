import AttestGuardEngine

/// A verdict's members as JSON text, keys sorted, without the enclosing braces: the score response is these members
/// and its signals, the assertion response nests them under `verdict`. Numbers as numbers, `ruleDecision` only when
/// the app monitors and the rules decided otherwise (as `RiskVerdict`'s `Codable` form).
///
/// Written by hand (``JSONText``) because both are the hottest routes' answers and `JSONEncoder` with sorted keys is
/// a large part of a verdict's CPU cost (`Benchmarks/results/2026-11-24-score-route-cpu.md`).
enum VerdictJSON {
    /// `"decision":…,"enforced":…,"reasons":[…],["ruleDecision":…,]"ruleSetVersion":…,"score":…`
    static func appendMembers(of verdict: RiskVerdict, to output: inout [UInt8]) {
        JSONText.appendKey("decision", first: true, to: &output)
        JSONText.appendString(verdict.decision.rawValue, to: &output)
        JSONText.appendKey("enforced", to: &output)
        JSONText.appendBool(verdict.enforced, to: &output)
        JSONText.appendKey("reasons", to: &output)
        output.append(UInt8(ascii: "["))
        for (index, reason) in verdict.reasons.enumerated() {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            output.append(UInt8(ascii: "{"))
            JSONText.appendKey("message", first: true, to: &output)
            JSONText.appendString(reason.message, to: &output)
            JSONText.appendKey("ruleId", to: &output)
            JSONText.appendString(reason.ruleId, to: &output)
            JSONText.appendKey("score", to: &output)
            JSONText.appendNumber(reason.score, to: &output)
            output.append(UInt8(ascii: "}"))
        }
        output.append(UInt8(ascii: "]"))
        if let ruleDecision = verdict.ruleDecision {
            JSONText.appendKey("ruleDecision", to: &output)
            JSONText.appendString(ruleDecision.rawValue, to: &output)
        }
        JSONText.appendKey("ruleSetVersion", to: &output)
        JSONText.appendString(verdict.ruleSetVersion, to: &output)
        JSONText.appendKey("score", to: &output)
        JSONText.appendNumber(verdict.score, to: &output)
    }

    /// The room a verdict's members usually take, to reserve once.
    static func estimatedSize(of verdict: RiskVerdict) -> Int {
        160 + 96 * verdict.reasons.count
    }
}
