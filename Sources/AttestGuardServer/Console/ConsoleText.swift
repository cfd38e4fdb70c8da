import Foundation

/// How the console writes times and shares: UTC to the minute, percentages with one decimal.
enum ConsoleText {
    private static let utc: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()

    /// `2026-11-26 10:05`.
    static func minute(_ date: Date) -> String {
        let parts = utc.dateComponents([.year, .month, .day, .hour, .minute], from: date)
        return String(format: "%04d-%02d-%02d %02d:%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0, parts.hour ?? 0, parts.minute ?? 0)
    }

    /// `2026-11-26 10:05:07`.
    static func second(_ date: Date) -> String {
        let parts = utc.dateComponents([.second], from: date)
        return minute(date) + String(format: ":%02d", parts.second ?? 0)
    }

    /// `10:05`, or the day and time for ranges longer than a day.
    static func tick(_ date: Date, long: Bool) -> String {
        let text = minute(date)
        return long ? String(text.dropFirst(5)) : String(text.suffix(5))
    }

    /// The percentage `part` is of `whole`, to one decimal, for a chart; 0 when the whole is 0.
    static func percent(_ part: Int, of whole: Int) -> Double {
        whole > 0 ? (Double(part) * 1_000 / Double(whole)).rounded() / 10 : 0
    }

    /// `12.5 %` of `whole`; `–` when the whole is 0.
    static func share(_ part: Int, of whole: Int) -> String {
        guard whole > 0 else { return "–" }
        return String(format: "%.1f %%", Double(part) * 100 / Double(whole))
    }
}
