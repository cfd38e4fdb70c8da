import Foundation

/// The fields of an `application/x-www-form-urlencoded` body: `name=value` pairs split at `&`, `+` a space, then
/// percent-decoded to UTF-8. A name given twice or text that does not decode is 400 `invalid_field`.
struct FormFields {
    private var values: [String: String] = [:]

    init(_ body: String) throws {
        for pair in body.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = Self.decode(parts[0]), let value = Self.decode(parts.count == 2 ? parts[1] : "") else {
                throw APIError.badRequest(.invalidField, "the form is not percent-encoded UTF-8")
            }
            guard values.updateValue(value, forKey: name) == nil else {
                throw APIError.badRequest(.invalidField, "a form field is given twice")
            }
        }
    }

    subscript(_ name: String) -> String? { values[name] }

    private static func decode(_ text: Substring) -> String? {
        text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}
