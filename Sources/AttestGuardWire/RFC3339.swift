public import Foundation

/// The one RFC 3339 date-time of the project: every JSON date the API writes, the CLI prints, the client reads, a log
/// line carries, and the timestamps inside Apple's receipts.
///
/// ``format(_:)`` writes UTC with milliseconds, `2026-11-22T12:00:00.123Z`. ``parse(_:)`` reads what a caller or Apple
/// writes: with or without a fraction of a second (any number of digits), in UTC (`Z` or `z`) or at an offset
/// (`+01:00`, `-05:30`), `T` or `t`; strict otherwise (fields in range, no spaces, no other ISO 8601 forms). Both are
/// arithmetic on the text, with no formatter or locale: a `DateFormatter` costs microseconds and is not safe to
/// share between threads, and Foundation's differ between Linux and Apple's platforms.
public enum RFC3339 {
    /// The instant, or `nil` when `text` is not an RFC 3339 date-time.
    public static func parse(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes.count <= 46 else { return nil }
        let last = bytes[bytes.count - 1]
        if last == UInt8(ascii: "Z") || last == UInt8(ascii: "z") {
            return utc(bytes[..<(bytes.count - 1)])
        }
        let sign = bytes[bytes.count - 6]
        guard sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-"), bytes[bytes.count - 3] == UInt8(ascii: ":"),
            let hours = number(bytes[(bytes.count - 5)..<(bytes.count - 3)]), let minutes = number(bytes[(bytes.count - 2)...]),
            hours < 24, minutes < 60,
            let local = utc(bytes[..<(bytes.count - 6)])
        else { return nil }
        let offset = TimeInterval(hours * 3_600 + minutes * 60)
        return local.addingTimeInterval(sign == UInt8(ascii: "+") ? -offset : offset)
    }

    /// `YYYY-MM-DDTHH:MM:SS.mmmZ`, to the nearest millisecond (a parsed ".460" is 40.459999... seconds in floating
    /// point, and must print as it was read). Instants outside years 0000-9999 are clamped to that range.
    public static func format(_ date: Date) -> String {
        let seconds = date.timeIntervalSince1970
        let clamped = seconds.isNaN ? 0 : min(max(seconds, -62_167_219_200), 253_402_300_799.999)
        let totalMilliseconds = Int((clamped * 1000).rounded())
        let milliseconds = ((totalMilliseconds % 1000) + 1000) % 1000
        let totalSeconds = (totalMilliseconds - milliseconds) / 1000
        let secondsOfDay = ((totalSeconds % 86_400) + 86_400) % 86_400
        let (year, month, day) = civilFromDays((totalSeconds - secondsOfDay) / 86_400)
        var text = ""
        text.reserveCapacity(24)
        append(year, digits: 4, to: &text)
        text.append("-")
        append(month, digits: 2, to: &text)
        text.append("-")
        append(day, digits: 2, to: &text)
        text.append("T")
        append(secondsOfDay / 3600, digits: 2, to: &text)
        text.append(":")
        append(secondsOfDay / 60 % 60, digits: 2, to: &text)
        text.append(":")
        append(secondsOfDay % 60, digits: 2, to: &text)
        text.append(".")
        append(milliseconds, digits: 3, to: &text)
        text.append("Z")
        return text
    }

    /// `YYYY-MM-DDTHH:MM:SS[.fraction]` read as UTC.
    private static func utc(_ bytes: ArraySlice<UInt8>) -> Date? {
        let bytes = Array(bytes)
        guard bytes.count >= 19, bytes.count <= 39 else { return nil }
        func separator(_ index: Int, _ character: Character) -> Bool { bytes[index] == character.asciiValue }
        guard separator(4, "-"), separator(7, "-"), separator(10, "T") || separator(10, "t"), separator(13, ":"), separator(16, ":"),
            let year = number(bytes[0..<4]), let month = number(bytes[5..<7]), let day = number(bytes[8..<10]),
            let hour = number(bytes[11..<13]), let minute = number(bytes[14..<16]), let second = number(bytes[17..<19]),
            (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day),
            hour < 24, minute < 60, second < 61
        else { return nil }
        var fraction = 0.0
        if bytes.count > 19 {
            guard separator(19, "."), bytes.count > 20 else { return nil }
            var scale = 0.1
            for index in 20..<bytes.count {
                guard let digit = number(bytes[index..<index + 1]) else { return nil }
                fraction += Double(digit) * scale
                scale /= 10
            }
        }
        let days = daysFromCivil(year: year, month: month, day: day)
        return Date(timeIntervalSince1970: Double(days * 86_400 + hour * 3_600 + minute * 60 + second) + fraction)
    }

    private static func number(_ bytes: ArraySlice<UInt8>) -> Int? {
        var value = 0
        for byte in bytes {
            guard (0x30...0x39).contains(byte) else { return nil }
            value = value * 10 + Int(byte - 0x30)
        }
        return value
    }

    private static func append(_ value: Int, digits: Int, to text: inout String) {
        let decimal = String(value)
        if decimal.count < digits { text.append(String(repeating: "0", count: digits - decimal.count)) }
        text.append(decimal)
    }

    static func isLeap(_ year: Int) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The proleptic Gregorian date `days` after 1970-01-01.
    static func civilFromDays(_ days: Int) -> (year: Int, month: Int, day: Int) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
