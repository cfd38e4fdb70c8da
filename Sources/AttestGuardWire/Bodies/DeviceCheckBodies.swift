/// Whom DeviceCheck bits are filed under: `{"kind": "key" | "user" | "device", "id": "..."}`.
public struct DeviceCheckSubjectBody: Codable, Sendable, Hashable {
    /// The kind of identifier named; the server's vocabulary has the same words (a test holds them equal).
    public enum Kind: String, Codable, Sendable, Hashable, CaseIterable {
        case key
        case user
        case device
    }

    public var kind: Kind
    /// The identifier: a key id as base64, a user id or a device id.
    public var id: String

    public init(kind: Kind, id: String) {
        self.kind = kind
        self.id = id
    }
}

/// `POST /v1/devicecheck/query` request body.
public struct DeviceCheckQueryRequestBody: Codable, Sendable, Hashable {
    public var appId: String
    /// The single-use `DCDevice` token, base64: sent to Apple only, never stored, logged or echoed.
    public var deviceToken: String
    public var subject: DeviceCheckSubjectBody
    /// `development` or `production`; the app's configured environment when absent.
    public var environment: String?

    public init(appId: String, deviceToken: String, subject: DeviceCheckSubjectBody, environment: String? = nil) {
        self.appId = appId
        self.deviceToken = deviceToken
        self.subject = subject
        self.environment = environment
    }
}

/// `POST /v1/devicecheck/update` request body: at least one bit.
public struct DeviceCheckUpdateRequestBody: Codable, Sendable, Hashable {
    public var appId: String
    public var deviceToken: String
    public var subject: DeviceCheckSubjectBody
    public var bit0: Bool?
    public var bit1: Bool?
    public var environment: String?

    public init(appId: String, deviceToken: String, subject: DeviceCheckSubjectBody, bit0: Bool? = nil, bit1: Bool? = nil, environment: String? = nil) {
        self.appId = appId
        self.deviceToken = deviceToken
        self.subject = subject
        self.bit0 = bit0
        self.bit1 = bit1
        self.environment = environment
    }
}

/// `POST /v1/devicecheck/validate` request body.
public struct DeviceCheckValidateRequestBody: Codable, Sendable, Hashable {
    public var appId: String
    public var deviceToken: String
    public var environment: String?

    public init(appId: String, deviceToken: String, environment: String? = nil) {
        self.appId = appId
        self.deviceToken = deviceToken
        self.environment = environment
    }
}
