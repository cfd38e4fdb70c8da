import AttestCore
public import Foundation

/// The binary fields of a request, written as base64 (either alphabet, padding optional): one decoder with one
/// bound, for key ids and for the objects the routes receive.
public enum Base64Field {
    /// The bytes of `text`, which may hold at most `maximumBytes`.
    /// - Throws: `invalid_field` when the text is too long for `maximumBytes`; `malformed_base64` when it does not
    ///   decode or decodes to nothing.
    public static func decode(_ text: String, field: String, maximumBytes: Int) throws(EngineError) -> Data {
        guard text.utf8.count <= (maximumBytes / 3 + 1) * 4 else {
            throw EngineError.invalid(.invalidField, "\(field) exceeds \(maximumBytes) bytes")
        }
        guard let data = Base64Text.decodeEither(text), !data.isEmpty else {
            throw EngineError.invalid(.malformedBase64, "\(field) is not base64")
        }
        return data
    }
}
