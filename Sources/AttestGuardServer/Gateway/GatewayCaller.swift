import AttestGuardEngine
import Foundation
import HTTPTypes

/// Who asks, as the gateway says it on forward-auth and on the app-facing routes: the client's host and client-facing
/// request-target (`X-Original-URI` or `X-Forwarded-Uri`), which choose the app by the route policy, and the trusted
/// headers, the user the gateway authenticated and the client's address. Nothing here comes from the client.
struct GatewayCaller: Sendable {
    /// The request-target in origin form, byte for byte as the client sent it.
    var requestTarget: String
    var host: String
    var user: Identifier?
    var ip: ClientIP?

    /// - Throws: ``APIError`` 400 (`missing_field`, `invalid_field`) for headers the gateway should have set otherwise.
    init(headers: HTTPFields, authority: String?, trusted: ForwardAuthHeaders.Trusted) throws(APIError) {
        requestTarget = try Self.gatewayValue(headers, ForwardAuthHeaders.originalURI, ForwardAuthHeaders.forwardedURI, maximumLength: 4_096)
        guard requestTarget.hasPrefix("/") else {
            throw .badRequest(.invalidField, "the original URI must be the request-target in origin form, starting with /")
        }
        guard let host = authority, !host.isEmpty else {
            throw .badRequest(.missingField, "the request has no Host: the gateway must pass the client's")
        }
        self.host = host
        do throws(EngineError) {
            user = try Self.utf8(headers, trusted.user).map { text throws(EngineError) in try Identifier(text, field: trusted.user.rawName) }
            ip = try headers[trusted.clientIP].map { text throws(EngineError) in try ClientIP(text, field: trusted.clientIP.rawName) }
        } catch {
            throw .badRequest(error.code, error.message)
        }
    }

    /// The value of the one header of a pair the gateway sets (nginx's `X-Original-*` or the `X-Forwarded-*` of
    /// Caddy and Traefik). Both present and different is refused: a client could have added the one the gateway does
    /// not overwrite.
    static func gatewayValue(_ headers: HTTPFields, _ first: HTTPField.Name, _ second: HTTPField.Name, maximumLength: Int) throws(APIError) -> String {
        let values = [first, second].compactMap { name in headers[values: name].isEmpty ? nil : (name, headers[values: name]) }
        guard let (name, found) = values.first else {
            throw .badRequest(.missingField, "the request lacks \(first.rawName) (or \(second.rawName)), which the gateway sets")
        }
        let all = values.flatMap(\.1)
        guard Set(all).count == 1, let value = found.first, !value.isEmpty else {
            throw .badRequest(.invalidField, "\(first.rawName) and \(second.rawName) disagree or repeat: the gateway must set one and delete the other")
        }
        guard value.utf8.count <= maximumLength, value.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw .badRequest(.invalidField, "\(name.rawName) must be at most \(maximumLength) visible ASCII characters")
        }
        return value
    }

    /// A header's bytes as UTF-8 (a user name is sent as its raw bytes); not UTF-8, or sent twice, is `invalid_field`.
    private static func utf8(_ headers: HTTPFields, _ name: HTTPField.Name) throws(EngineError) -> String? {
        let fields = headers.filter { $0.name == name }
        guard let field = fields.first else { return nil }
        guard fields.count == 1 else {
            throw EngineError(.invalidInput, code: .invalidField, "\(name.rawName) is sent more than once: the gateway must replace the client's")
        }
        let bytes = field.withUnsafeBytesOfValue { Array($0) }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw EngineError(.invalidInput, code: .invalidField, "\(name.rawName) is not UTF-8")
        }
        return text
    }
}
