import SQLiteNIO

/// A statement's parameters, numbered in the order they are bound, for statements whose text is built with its
/// values: each value is bound and its place (`?N`) written into the text, never the value itself.
struct SQLiteParameters {
    private(set) var values: [SQLiteData] = []

    /// Binds `value` and answers its place in the text.
    mutating func bind(_ value: SQLiteData) -> String {
        values.append(value)
        return "?\(values.count)"
    }
}
