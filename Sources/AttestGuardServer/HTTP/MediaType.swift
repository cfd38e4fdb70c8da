/// Checks a `Content-Type` value against the one media type the API reads.
enum MediaType {
    /// Whether `value` is `application/json` with no parameter other than `charset=utf-8` (names and values
    /// case-insensitive, the value optionally quoted, whitespace around the parts allowed). Any other parameter or
    /// charset is refused: the server reads UTF-8 JSON only, and a body labelled otherwise is not what it reads.
    static func isJSON(_ value: String) -> Bool {
        // What nearly every client sends, compared byte for byte before the general reading splits the value.
        if value.utf8.elementsEqual("application/json".utf8) || value.utf8.elementsEqual("application/json; charset=utf-8".utf8) {
            return true
        }
        let parts = value.split(separator: ";", omittingEmptySubsequences: false).map { $0.trimmingSpaces }
        guard let type = parts.first, type.lowercased() == "application/json" else { return false }
        for parameter in parts.dropFirst() {
            guard let equals = parameter.firstIndex(of: "=") else { return false }
            let name = parameter[..<equals].trimmingSpaces.lowercased()
            var charset = parameter[parameter.index(after: equals)...].trimmingSpaces
            if charset.count >= 2, charset.hasPrefix("\""), charset.hasSuffix("\"") {
                charset = charset.dropFirst().dropLast()
            }
            guard name == "charset", charset.lowercased() == "utf-8" else { return false }
        }
        return true
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces and tabs (HTTP's optional whitespace).
    fileprivate var trimmingSpaces: SubSequence {
        var text = self[...]
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return text
    }
}
