/// One fraud label as `POST /v1/labels` and the label import write it: `{appId, requestId|keyId|userId|deviceId,
/// label, source, labelledAt?}`, every value a string, `labelledAt` an RFC 3339 time. Other members of an import's
/// line are ignored (a case export carries columns of its own); the API refuses them.
public struct LabelFields: Codable, Sendable, Hashable {
    public var appId: String?
    public var requestId: String?
    public var keyId: String?
    public var userId: String?
    public var deviceId: String?
    /// `fraud` or `legitimate`.
    public var label: String?
    public var source: String?
    public var labelledAt: String?

    /// The fields a label names, in the order a CSV export's header may list them.
    public static let names = ["appId", "requestId", "keyId", "userId", "deviceId", "label", "source", "labelledAt"]

    public init(
        appId: String? = nil, requestId: String? = nil, keyId: String? = nil, userId: String? = nil, deviceId: String? = nil,
        label: String? = nil, source: String? = nil, labelledAt: String? = nil
    ) {
        self.appId = appId
        self.requestId = requestId
        self.keyId = keyId
        self.userId = userId
        self.deviceId = deviceId
        self.label = label
        self.source = source
        self.labelledAt = labelledAt
    }

    /// The fields of a CSV row or any other map, by ``names``.
    public init(_ values: [String: String]) {
        self.init(
            appId: values["appId"], requestId: values["requestId"], keyId: values["keyId"], userId: values["userId"],
            deviceId: values["deviceId"], label: values["label"], source: values["source"], labelledAt: values["labelledAt"]
        )
    }

    /// Whether any field of a label is set (an object without one is not a label).
    public var isEmpty: Bool {
        [appId, requestId, keyId, userId, deviceId, label, source, labelledAt].allSatisfy { $0 == nil }
    }
}

/// `POST /v1/labels` request body for a batch: `{labels: [...]}` (one label may also be sent alone, as
/// ``LabelFields``).
public struct LabelBatchBody: Codable, Sendable, Hashable {
    public var labels: [LabelFields]

    public init(labels: [LabelFields]) {
        self.labels = labels
    }
}
