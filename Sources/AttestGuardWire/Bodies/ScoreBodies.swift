/// `POST /v1/score` request body: the app and whatever the gateway knows of a request that carries no assertion.
public struct ScoreRequestBody: Codable, Sendable, Hashable {
    public var appId: String
    /// base64 key id of the client's App Attest key, if it has one.
    public var keyId: String?
    public var userId: String?
    public var deviceId: String?
    /// The client's address as the gateway saw it.
    public var ip: String?
    public var action: String?
    /// The client's own App Attest status: `supported`, `unsupported`, `throttled`, `failed`, ...
    public var attestStatus: String?
    public var attributes: [String: ScalarValue]?

    public init(
        appId: String, keyId: String? = nil, userId: String? = nil, deviceId: String? = nil, ip: String? = nil, action: String? = nil,
        attestStatus: String? = nil, attributes: [String: ScalarValue]? = nil
    ) {
        self.appId = appId
        self.keyId = keyId
        self.userId = userId
        self.deviceId = deviceId
        self.ip = ip
        self.action = action
        self.attestStatus = attestStatus
        self.attributes = attributes
    }
}

extension ScoreRequestBody: PlainJSONReadable {
    package init(plain value: PlainJSONValue, unread: PlainJSONUnreadMembers) throws(PlainJSONDeclined) {
        var members = try PlainJSONMembers(value)
        self.init(
            appId: try members.string("appId"), keyId: try members.stringIfPresent("keyId"), userId: try members.stringIfPresent("userId"),
            deviceId: try members.stringIfPresent("deviceId"), ip: try members.stringIfPresent("ip"), action: try members.stringIfPresent("action"),
            attestStatus: try members.stringIfPresent("attestStatus"), attributes: try ScalarValue.plainAttributes(members.valueIfPresent("attributes"))
        )
        try members.finish(unread)
    }
}
