import AttestGuardEngine
import AttestGuardWire
import AttestVocabulary
package import Foundation
import Hummingbird
import NIOCore

/// Reads a JSON request body under the configured size limit and decodes it, turning every failure into a 400
/// (or 413/415) that names the problem: a body can never cause a 500. The body must be labelled
/// `application/json` (``MediaType/isJSON(_:)``), else 415; framing that breaks while it is read (a bad chunk, a
/// client that leaves) is 400 `malformed_request`; text that is not UTF-8 (UTF-16 or UTF-32, which the platform's
/// decoder would read, a byte order mark, invalid sequences), an object naming a key twice and a trailing comma are
/// 400 `malformed_json`. The guards scan the very bytes the decoder reads, so no encoding slips past them.
package struct JSONBody {
    let maximumBytes: Int

    func decode<Value: Decodable>(_ type: Value.Type, from request: Request) async throws -> Value {
        let contentType = request.headers[.contentType]
        if let contentType, !MediaType.isJSON(contentType) {
            throw Self.unsupportedMediaType
        }
        let buffer = try await collect(request)
        if contentType == nil, buffer.readableBytes > 0 {
            throw Self.unsupportedMediaType
        }
        let plain = buffer.withUnsafeReadableBytes {
            PlainJSONDecoder.decode(Value.self, from: $0, unreadMembers: Self.unreadMembers(of: Value.self))
        }
        if let plain { return plain }
        do {
            return try Self.decodeStrictlySlowly(Value.self, from: Data(buffer.readableBytesView))
        } catch let error as DecodingError {
            throw APIError.badRequest(Self.code(for: error), Self.describe(error))
        } catch let error as APIError {
            throw error
        } catch let error as EngineError {
            // A typed field (an IP address) that refused its text.
            throw error
        } catch {
            throw APIError.badRequest(.malformedJSON, "the body is not valid JSON")
        }
    }

    /// The body's bytes as received, under the size limit (413 `body_too_large` past it, 400 `malformed_request`
    /// when the framing breaks): for a route that hashes a body rather than decoding it.
    func collect(_ request: Request) async throws -> ByteBuffer {
        var request = request
        do {
            return try await request.collectBody(upTo: maximumBytes)
        } catch is NIOTooManyBytesError {
            throw APIError(.contentTooLarge, code: .bodyTooLarge, "the body exceeds \(maximumBytes) bytes")
        } catch let error as HTTPError where error.status == .contentTooLarge {
            throw APIError(.contentTooLarge, code: .bodyTooLarge, "the body exceeds \(maximumBytes) bytes")
        } catch {
            // The parser rejected the framing, or the connection closed or failed mid-body: nothing more can be read.
            throw APIError.malformedRequest("the request body could not be read whole: its framing is malformed or the connection closed")
        }
    }

    static let unsupportedMediaType = APIError(
        .unsupportedMediaType, code: .unsupportedMediaType, "send the body as application/json (the only parameter allowed is charset=utf-8)"
    )

    /// `Value` from JSON text as every reader of API JSON reads it (routes, the label import): the text guards
    /// (``textProblem(_:)``), then a decoding that refuses unread members (``StrictJSONDecoding``). Throws the
    /// guards' and the members' ``APIError``, and the decoder's `DecodingError` for the caller to describe.
    ///
    /// Plain text, which is every body a well-behaved client sends, takes ``PlainJSONDecoder``, which declines
    /// whatever the guards or the members check would refuse; the rest takes the guards and `JSONDecoder`, which
    /// give the canonical error. The two paths give equal values (`PlainJSONDecoderTests`).
    package static func decodeStrictly<Value: Decodable>(_ type: Value.Type, from json: Data) throws -> Value {
        if let plain = PlainJSONDecoder.decode(type, from: json, unreadMembers: unreadMembers(of: type)) { return plain }
        return try decodeStrictlySlowly(type, from: json)
    }

    /// ``decodeStrictly(_:from:)`` without the fast path: the guards, then `JSONDecoder` refusing unread members.
    package static func decodeStrictlySlowly<Value: Decodable>(_ type: Value.Type, from json: Data) throws -> Value {
        if let problem = textProblem(json) { throw problem }
        return try StrictJSONDecoding.decode(type, from: json)
    }

    /// The fast path's rule for members `Value` does not read: the slow path refuses them, so the fast one declines.
    private static func unreadMembers<Value>(of type: Value.Type) -> PlainJSONDecoder.UnreadMembers {
        .decline(ignoringTopLevel: StrictJSONDecoding.ignoredMembers(of: type))
    }

    /// What the guards refuse in JSON text before any decoder reads it, or `nil`: not UTF-8, a `null`, a key twice
    /// in one object, a trailing comma. Every reader of API JSON (routes, the label import) runs it, so that one text
    /// reads the same everywhere.
    static func textProblem(_ bytes: some Collection<UInt8>) -> APIError? {
        if !isUTF8Text(bytes) {
            return APIError.badRequest(.malformedJSON, "the body must be JSON text in UTF-8, without a byte order mark")
        }
        if containsNullLiteral(bytes) {
            return APIError.badRequest(.invalidField, "null is not a value here: omit optional fields instead")
        }
        switch JSONDuplicateKeys.firstProblem(in: bytes) {
        case .duplicateKey(let key): return APIError.badRequest(.malformedJSON, "an object names the key \"\(key.prefix(64))\" twice")
        case .trailingComma: return APIError.badRequest(.malformedJSON, "a comma closes an object or array: JSON allows none there")
        case nil: return nil
        }
    }

    /// Whether `bytes` can be JSON text in UTF-8 as RFC 8259 requires: valid UTF-8, no byte order mark, and no NUL
    /// byte (JSON escapes control characters, so a NUL is only ever there in UTF-16 or UTF-32 text).
    static func isUTF8Text(_ bytes: some Collection<UInt8>) -> Bool {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) || bytes.contains(0) { return false }
        return String(validating: bytes, as: UTF8.self) != nil
    }

    /// Whether the JSON text has a `null` outside strings. No field of the API is nullable (the OpenAPI document
    /// says so), and a decoder would otherwise read `"keyId": null` as an absent key id. One pass, no allocation.
    static func containsNullLiteral(_ bytes: some Collection<UInt8>) -> Bool {
        var inString = false
        var escaped = false
        var index = bytes.startIndex
        while index != bytes.endIndex {
            let byte = bytes[index]
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
            } else if byte == UInt8(ascii: "\"") {
                inString = true
            } else if byte == UInt8(ascii: "n"), bytes[index...].starts(with: "null".utf8) {
                return true
            }
            index = bytes.index(after: index)
        }
        return false
    }

    private static func code(for error: DecodingError) -> ErrorCode {
        switch error {
        case .keyNotFound, .valueNotFound: .missingField
        case .typeMismatch: .invalidField
        case .dataCorrupted(let context): context.codingPath.isEmpty ? .malformedJSON : .invalidField
        @unknown default: .malformedJSON
        }
    }

    private static func describe(_ error: DecodingError) -> String {
        func path(_ codingPath: [any CodingKey]) -> String {
            codingPath.isEmpty ? "body" : codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, let context): return "\(path(context.codingPath + [key])) is required"
        case .valueNotFound(_, let context): return "\(path(context.codingPath)) must not be null"
        case .typeMismatch(let type, let context): return "\(path(context.codingPath)) must be \(Self.name(type))"
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "the body is not valid JSON" : "\(path(context.codingPath)): \(context.debugDescription)"
        @unknown default: return "the body does not match the schema"
        }
    }

    private static func name(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Int.Type, is Int64.Type, is Double.Type: "a number"
        case is Bool.Type: "a boolean"
        default: "\(type)"
        }
    }
}

/// Exposes the null and duplicate-key scans to tests.
package enum JSONBodyProbe {
    package static func containsNull(_ json: String) -> Bool { JSONBody.containsNullLiteral(Array(json.utf8)) }
    package static func duplicateKey(_ json: String) -> String? { JSONDuplicateKeys.first(in: Array(json.utf8)) }
    package static func hasTrailingComma(_ json: String) -> Bool { JSONDuplicateKeys.firstProblem(in: Array(json.utf8)) == .trailingComma }
    package static func isUTF8Text(_ bytes: [UInt8]) -> Bool { JSONBody.isUTF8Text(bytes) }
}
