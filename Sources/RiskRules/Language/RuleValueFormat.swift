import Foundation

/// How values read in messages and rendered reasons: whole numbers without a decimal point, durations in their
/// largest whole units (`1d 2h`), timestamps in ISO 8601, missing values as `missing`.
public enum RuleValueFormat {
    public static func number(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        var text = String(format: "%.4f", value)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    public static func duration(_ seconds: Double) -> String {
        guard seconds.isFinite else { return "\(seconds)s" }
        let sign = seconds < 0 ? "-" : ""
        var remaining = Int64(abs(seconds).rounded())
        guard remaining > 0 else { return "0s" }
        var parts: [String] = []
        for (unit, size) in [("w", Int64(604_800)), ("d", 86_400), ("h", 3_600), ("m", 60), ("s", 1)] where remaining >= size {
            parts.append("\(remaining / size)\(unit)")
            remaining %= size
            if parts.count == 2 { break }
        }
        return sign + parts.joined(separator: " ")
    }

    public static func timestamp(_ secondsSince1970: Double) -> String {
        Date(timeIntervalSince1970: secondsSince1970).formatted(.iso8601)
    }
}
