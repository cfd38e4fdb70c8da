import Foundation
import Hummingbird
import NIOCore

/// Reads a JSON request body under the configured size limit and decodes it, turning every failure into a 400
/// (or 413/415) that names the problem: a body can never cause a 500.
struct JSONBody {
    let maximumBytes: Int

    func decode<Value: Decodable>(_ type: Value.Type, from request: Request) async throws -> Value {
        if let contentType = request.headers[.contentType], !contentType.lowercased().hasPrefix("application/json") {
            throw APIError(.unsupportedMediaType, code: "unsupported_media_type", "send the body as application/json")
        }
        var request = request
        let buffer: ByteBuffer
        do {
            buffer = try await request.collectBody(upTo: maximumBytes)
        } catch is NIOTooManyBytesError {
            throw APIError(.contentTooLarge, code: "body_too_large", "the body exceeds \(maximumBytes) bytes")
        } catch let error as HTTPError where error.status == .contentTooLarge {
            throw APIError(.contentTooLarge, code: "body_too_large", "the body exceeds \(maximumBytes) bytes")
        }
        do {
            return try JSONDecoder().decode(Value.self, from: Data(buffer.readableBytesView))
        } catch let error as DecodingError {
            throw APIError.badRequest(Self.code(for: error), Self.describe(error))
        } catch let error as APIError {
            throw error
        } catch {
            throw APIError.badRequest("malformed_json", "the body is not valid JSON")
        }
    }

    private static func code(for error: DecodingError) -> String {
        switch error {
        case .keyNotFound, .valueNotFound: "missing_field"
        case .typeMismatch: "invalid_field"
        case .dataCorrupted(let context): context.codingPath.isEmpty ? "malformed_json" : "invalid_field"
        @unknown default: "malformed_json"
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
