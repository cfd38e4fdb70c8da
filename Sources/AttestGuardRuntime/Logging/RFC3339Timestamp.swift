#if canImport(Glibc)
package import Glibc
#elseif canImport(Darwin)
package import Darwin
#endif
package import Foundation

/// A log line's time: RFC 3339 in UTC with milliseconds, `2026-11-26T07:12:56.123Z`. Written by hand from
/// `gmtime_r`, because a `DateFormatter` costs microseconds and is not safe to share between threads.
package enum RFC3339Timestamp {
    package static func string(_ date: Date) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1_000).rounded(.down))
        var seconds = time_t(milliseconds.quotientRoundingDown(1_000))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        var text = ""
        text.reserveCapacity(24)
        append(Int(parts.tm_year) + 1_900, digits: 4, to: &text)
        text.append("-")
        append(Int(parts.tm_mon) + 1, digits: 2, to: &text)
        text.append("-")
        append(Int(parts.tm_mday), digits: 2, to: &text)
        text.append("T")
        append(Int(parts.tm_hour), digits: 2, to: &text)
        text.append(":")
        append(Int(parts.tm_min), digits: 2, to: &text)
        text.append(":")
        append(Int(parts.tm_sec), digits: 2, to: &text)
        text.append(".")
        append(Int(milliseconds - milliseconds.quotientRoundingDown(1_000) * 1_000), digits: 3, to: &text)
        text.append("Z")
        return text
    }

    private static func append(_ value: Int, digits: Int, to text: inout String) {
        let decimal = String(value)
        if decimal.count < digits { text.append(String(repeating: "0", count: digits - decimal.count)) }
        text.append(decimal)
    }
}

extension Int64 {
    /// Division rounding towards minus infinity, so that instants before 1970 keep a millisecond part in 0...999.
    fileprivate func quotientRoundingDown(_ divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor < 0) ? quotient - 1 : quotient
    }
}
