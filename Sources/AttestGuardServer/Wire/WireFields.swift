import AttestCore
import AttestGuardEngine
import Foundation

/// Checks and decodes the text fields of request bodies that have no typed value of the engine's: the challenge,
/// bounded strings, the asserted request and its attributes. Every failure is a 400 naming the field.
enum WireFields {
    static func challenge(_ text: String) throws -> Data {
        guard text.utf8.count <= 64, let data = Base64Text.decodeURL(text) else {
            throw APIError.badRequest(.malformedBase64, "challenge is not base64url")
        }
        guard data.count == 32 else {
            throw APIError.badRequest(.invalidField, "challenge must be 32 bytes")
        }
        return data
    }

    /// Lengths count Unicode scalars, as JSON Schema's maxLength does.
    static func text(_ value: String, field: String, maximumLength: Int) throws {
        guard value.unicodeScalars.count <= maximumLength else {
            throw APIError.badRequest(.invalidField, "\(field) is longer than \(maximumLength) characters")
        }
    }

    /// The gateway's view of the protected request.
    static func checkRequest(_ request: AssertedRequest) throws {
        try text(request.method, field: "request.method", maximumLength: 16)
        guard !request.method.isEmpty else { throw APIError.badRequest(.invalidField, "request.method is empty") }
        try text(request.path, field: "request.path", maximumLength: 4_096)
        guard let bodySha256 = request.bodySha256 else {
            throw APIError.badRequest(.missingField, "request.bodySha256 is required: the base64url SHA-256 of the body")
        }
        try self.bodySha256(bodySha256, field: "request.bodySha256")
        if let action = request.action { try text(action, field: "request.action", maximumLength: 64) }
        if let attributes = request.attributes { try self.attributes(attributes, field: "request.attributes") }
    }

    /// A base64url SHA-256 (43 characters, no padding), as clientData v1 carries a body's hash.
    static func bodySha256(_ text: String, field: String) throws {
        guard text.utf8.count == 43, let digest = Base64Text.decodeURL(text), digest.count == 32 else {
            throw APIError.badRequest(.invalidField, "\(field) must be the base64url SHA-256 of the body (43 characters)")
        }
    }

    /// Custom attributes for the rules: at most 64, names up to 64 characters, strings up to 1,024.
    static func attributes(_ attributes: [String: AssertedRequest.Attribute], field: String) throws {
        guard attributes.count <= 64 else { throw APIError.badRequest(.invalidField, "\(field) has more than 64 entries") }
        for (name, value) in attributes {
            try text(name, field: "\(field) key", maximumLength: 64)
            if case .string(let string) = value { try text(string, field: "\(field).\(name)", maximumLength: 1_024) }
        }
    }
}
