import AttestCore
import AttestGuardWire
import Foundation

/// What the engine reads from the clientData an app signed: the challenge and, for format v1, the request the
/// app meant to authorise.
struct AssertionClientData: Sendable, Hashable {
    /// The request fields of clientData v1.
    struct BoundRequest: Sendable, Hashable, Decodable {
        var method: String
        var path: String
        var bodySha256: String
    }

    var challenge: Data
    /// Present for v1, absent for legacy formats.
    var boundRequest: BoundRequest?

    /// Parses `bytes` in the app's format; failures are `malformed_client_data`.
    init(_ bytes: Data, format: AppPolicy.ClientDataFormat) throws(EngineError) {
        switch format {
        case .v1:
            let v1: ClientDataV1
            do {
                v1 = try ClientDataV1(parsing: bytes)
            } catch {
                throw EngineError.verification(.malformedClientData, error.description)
            }
            self.challenge = try Self.decodeChallenge(v1.challenge)
            self.boundRequest = BoundRequest(method: v1.method, path: v1.path, bodySha256: v1.bodySha256)
        case .legacy(let pointer):
            let json: Any
            do {
                json = try JSONSerialization.jsonObject(with: bytes, options: [.fragmentsAllowed])
            } catch {
                throw EngineError.verification(.malformedClientData, "clientData is not JSON")
            }
            guard let challenge = JSONPointer.resolve(pointer, in: json) as? String else {
                throw EngineError.verification(.malformedClientData, "clientData has no string at \(pointer)")
            }
            self.challenge = try Self.decodeChallenge(challenge)
            self.boundRequest = nil
        }
    }

    /// Checks the signed request against the request the gateway received; names the first field that differs.
    /// The body is compared only when the gateway hashed it.
    func checkBinding(to request: AssertedRequest) throws(EngineError) -> AssertionResult.RequestBinding {
        guard let bound = boundRequest else { return .notChecked }
        let mismatch: String? =
            if bound.method != request.method { "method (signed \(bound.method), received \(request.method))" }
            else if bound.path != request.path { "path (signed \(bound.path), received \(request.path))" }
            else if let received = request.bodySha256, bound.bodySha256 != received { "bodySha256" }
            else { nil }
        if let mismatch {
            throw EngineError.verification(.requestBindingMismatch, "the assertion signed another request: \(mismatch) differs")
        }
        return request.bodySha256 == nil ? .verifiedWithoutBody : .verified
    }

    private static func decodeChallenge(_ text: String) throws(EngineError) -> Data {
        guard let challenge = Base64Text.decodeURL(text), challenge.count == 32 else {
            throw EngineError.verification(.malformedClientData, "the challenge in clientData is not 32 bytes of base64url")
        }
        return challenge
    }
}

/// RFC 6901 JSON pointers over `JSONSerialization` values.
enum JSONPointer {
    static func resolve(_ pointer: String, in document: Any) -> Any? {
        guard !pointer.isEmpty else { return document }
        guard pointer.hasPrefix("/") else { return nil }
        var current: Any = document
        for rawToken in pointer.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            let token = rawToken.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
            if let object = current as? [String: Any], let next = object[token] {
                current = next
            } else if let array = current as? [Any], let index = Int(token), array.indices.contains(index) {
                current = array[index]
            } else {
                return nil
            }
        }
        return current
    }
}
