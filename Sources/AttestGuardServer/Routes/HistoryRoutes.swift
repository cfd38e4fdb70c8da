import AttestGuardWire
import AttestGuardEngine
import Foundation
import Hummingbird
import AttestGuardRuntime

/// The analysts' read routes (`analyst` or `admin`, limited to the key's apps): a key's risk-metric history and
/// receipt refreshes, and the decisions about a key, user or device over a bounded range, a page at a time.
struct HistoryRoutes {
    /// The query parameters that name a decision search's subject; exactly one is given.
    static let subjects = ["keyId", "userId", "deviceId"]

    let engine: Engine

    func register(on router: Router<AttestGuardRequestContext>, keys: APIKeyRing) {
        let analyst = router.group("v1").add(middleware: APIKeyMiddleware(ring: keys, scopes: [.analyst, .admin]))
        analyst.get("apps/:appId/keys/:keyId/history", use: keyHistory)
        analyst.get("apps/:appId/decisions", use: decisions)
    }

    @Sendable func keyHistory(_ request: Request, context: AttestGuardRequestContext) async throws -> Response {
        try context.requireAccess(to: try Self.appId(context))
        let (appId, keyId) = try VerificationRoutes.keyPath(context)
        let query = try QueryParameters(request.uri.query)
        let history = try await engine.history.keyHistory(appId: appId, keyId: try KeyId(bytes: keyId), limit: try query.integer("limit"))
        return try JSONResponse.make(KeyHistoryBody(history), status: .ok)
    }

    @Sendable func decisions(_ request: Request, context: AttestGuardRequestContext) async throws -> Response {
        let appId = try Self.appId(context)
        try context.requireAccess(to: appId)
        let query = try QueryParameters(request.uri.query)
        let page = try await engine.history.decisions(DecisionQuery(
            appId: appId,
            subject: try Self.subject(query),
            from: try query.instant("from"),
            to: try query.instant("to"),
            limit: try query.integer("limit"),
            cursor: try query["cursor"].map { text throws(EngineError) in try DecisionCursor(text: text) }
        ))
        return try JSONResponse.make(DecisionPageBody(page), status: .ok)
    }

    /// The app id of the path, percent-decoded.
    private static func appId(_ context: AttestGuardRequestContext) throws -> String {
        guard let raw = context.parameters.get("appId") else {
            throw APIError.badRequest(.missingField, "the path needs an app id")
        }
        return raw.removingPercentEncoding ?? raw
    }

    /// The one subject the query names. User and device ids are checked here and hashed by the engine; they are
    /// never echoed, not even in an error.
    private static func subject(_ query: QueryParameters) throws -> DecisionQuery.Subject {
        let named = subjects.filter { query[$0] != nil }
        guard named.count == 1, let name = named.first, let text = query[name] else {
            throw APIError.badRequest(
                named.isEmpty ? .missingField : .invalidField, "name exactly one of keyId, userId and deviceId"
            )
        }
        switch name {
        case "keyId":
            guard isKeyIdText(text) else {
                throw APIError.badRequest(.invalidField, "keyId must be base64url without padding (43 characters) or standard base64 (44)")
            }
            return .key(try KeyId(pathText: text))
        case "userId": return .user(try Identifier(text, field: name))
        default: return .device(try Identifier(text, field: name))
        }
    }

    /// A key id in one of the two forms the contract names, and no mixture of them.
    private static func isKeyIdText(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        func isAlphanumeric(_ byte: UInt8) -> Bool {
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
        }
        switch bytes.count {
        case 43: return bytes.allSatisfy { isAlphanumeric($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") }
        case 44:
            return bytes.last == UInt8(ascii: "=")
                && bytes.dropLast().allSatisfy { isAlphanumeric($0) || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "/") }
        default: return false
        }
    }
}
