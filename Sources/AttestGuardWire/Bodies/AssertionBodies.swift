/// A JSON string, number or boolean: a custom attribute the gateway passes for the rules, or a logged signal's
/// value (`null` where the signal was missing).
public enum ScalarValue: Codable, Sendable, Hashable {
    case string(String)
    case number(Double)
    case bool(Bool)

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let bool = try? container.decode(Bool.self) {
            self = .bool(bool)
        } else if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else {
            self = .string(try container.decode(String.self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .bool(let value): try container.encode(value)
        }
    }
}

/// The protected request an assertion signs, as the gateway or backend describes it (`request` of
/// `POST /v1/assertions`).
public struct AssertedRequestBody: Codable, Sendable, Hashable {
    public var method: String
    public var path: String
    /// base64url SHA-256 of the exact request body; absent when the gateway cannot hash the body (Caddy).
    public var bodySha256: String?
    /// The client's address as the gateway saw it.
    public var ip: String?
    public var action: String?
    public var attributes: [String: ScalarValue]?

    public init(
        method: String, path: String, bodySha256: String?, ip: String? = nil, action: String? = nil, attributes: [String: ScalarValue]? = nil
    ) {
        self.method = method
        self.path = path
        self.bodySha256 = bodySha256
        self.ip = ip
        self.action = action
        self.attributes = attributes
    }
}

/// `POST /v1/assertions` request body: the app's assertion over its clientData, and the request it protects.
public struct AssertionRequestBody: Codable, Sendable, Hashable {
    public var appId: String
    /// base64 key id.
    public var keyId: String
    /// base64 assertion object.
    public var assertion: String
    /// base64 of the exact clientData bytes the app signed.
    public var clientData: String
    public var userId: String
    public var request: AssertedRequestBody

    public init(appId: String, keyId: String, assertion: String, clientData: String, userId: String, request: AssertedRequestBody) {
        self.appId = appId
        self.keyId = keyId
        self.assertion = assertion
        self.clientData = clientData
        self.userId = userId
        self.request = request
    }

    /// The headers an app sends with the protected request itself, for a gateway's forward-auth to read.
    public var appAttestHeaders: [(name: AppAttestHeader, value: String)] {
        [(.keyId, keyId), (.assertion, assertion), (.clientData, clientData)]
    }
}

extension AssertedRequestBody: PlainJSONReadable {
    package init(plain value: PlainJSONValue, unread: PlainJSONUnreadMembers) throws(PlainJSONDeclined) {
        var members = try PlainJSONMembers(value)
        self.init(
            method: try members.string("method"), path: try members.string("path"), bodySha256: try members.stringIfPresent("bodySha256"),
            ip: try members.stringIfPresent("ip"), action: try members.stringIfPresent("action"),
            attributes: try ScalarValue.plainAttributes(members.valueIfPresent("attributes"))
        )
        try members.finish(unread)
    }
}

extension AssertionRequestBody: PlainJSONReadable {
    package init(plain value: PlainJSONValue, unread: PlainJSONUnreadMembers) throws(PlainJSONDeclined) {
        var members = try PlainJSONMembers(value)
        self.init(
            appId: try members.string("appId"), keyId: try members.string("keyId"), assertion: try members.string("assertion"),
            clientData: try members.string("clientData"), userId: try members.string("userId"),
            request: try AssertedRequestBody(plain: members.value("request"), unread: unread.nested)
        )
        try members.finish(unread)
    }
}

extension ScalarValue {
    /// A value as ``init(from:)`` reads it from a plain tree: a boolean, else a number (finite), else a string.
    init(plain value: PlainJSONValue) throws(PlainJSONDeclined) {
        switch value {
        case .bool(let flag): self = .bool(flag)
        case .number: self = .number(try value.plainDouble())
        case .string(let text): self = .string(text)
        case .array, .object: throw PlainJSONDeclined()
        }
    }

    /// An `attributes` object as `[String: ScalarValue]`'s decoding reads it (every member read), `nil` when absent.
    static func plainAttributes(_ value: PlainJSONValue?) throws(PlainJSONDeclined) -> [String: ScalarValue]? {
        guard let value else { return nil }
        guard case .object(let object) = value else { throw PlainJSONDeclined() }
        var attributes: [String: ScalarValue] = [:]
        attributes.reserveCapacity(object.members.count)
        for member in object.members { attributes[member.key] = try ScalarValue(plain: member.value) }
        return attributes
    }
}
