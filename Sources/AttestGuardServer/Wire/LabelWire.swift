public import AttestGuardEngine
import AttestVocabulary
import Foundation
import AttestGuardWire

/// One fraud label as JSON and the import's lines write it: `{appId, requestId|keyId|userId|deviceId, label, source,
/// labelledAt?}`, every value a string, `labelledAt` an RFC 3339 time. Other members are ignored (a case export
/// carries columns of its own).
public struct LabelFields: Sendable, Decodable, Hashable {
    public var appId: String?
    public var requestId: String?
    public var keyId: String?
    public var userId: String?
    public var deviceId: String?
    public var label: String?
    public var source: String?
    public var labelledAt: String?

    /// The fields a label names, in the order a CSV export's header may list them.
    public static let names = ["appId", "requestId", "keyId", "userId", "deviceId", "label", "source", "labelledAt"]

    public init(_ values: [String: String]) {
        appId = values["appId"]
        requestId = values["requestId"]
        keyId = values["keyId"]
        userId = values["userId"]
        deviceId = values["deviceId"]
        label = values["label"]
        source = values["source"]
        labelledAt = values["labelledAt"]
    }

    /// Whether any field of a label is set (an object without one is not a label).
    var isEmpty: Bool {
        [appId, requestId, keyId, userId, deviceId, label, source, labelledAt].allSatisfy { $0 == nil }
    }

    /// The submission, its time read as RFC 3339.
    /// - Throws: `invalid_field` for a time that is not RFC 3339.
    public func submission() throws(EngineError) -> LabelSubmission {
        var time: Date?
        if let labelledAt, !labelledAt.isEmpty {
            guard let parsed = RFC3339.parse(labelledAt) else {
                throw EngineError(.invalidInput, code: .invalidField, "labelledAt must be an RFC 3339 time such as 2026-11-22T12:00:00Z")
            }
            time = parsed
        }
        func present(_ text: String?) -> String? { text?.isEmpty == false ? text : nil }
        return LabelSubmission(
            appId: appId, requestId: present(requestId), keyId: present(keyId), userId: present(userId), deviceId: present(deviceId),
            label: label, source: source, labelledAt: time
        )
    }
}

/// `POST /v1/labels` request body: one label, or `{labels: [...]}` (at most ``LabelService/maximumBatch``).
struct LabelRequestBody: Decodable {
    var labels: [LabelFields]?
    var single: LabelFields

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        labels = try container.decodeIfPresent([LabelFields].self, forKey: .labels)
        single = try LabelFields(from: decoder)
    }

    private enum Keys: String, CodingKey {
        case labels
    }

    /// The labels the body carries.
    func all() throws -> [LabelFields] {
        guard let labels else { return [single] }
        guard single.isEmpty else {
            throw APIError.badRequest(.invalidField, "send one label, or {labels: [...]}, not both")
        }
        guard !labels.isEmpty else { throw APIError.badRequest(.missingField, "labels is empty") }
        return labels
    }
}

/// `POST /v1/labels` response body: what storing each label did, in the order sent, and the counts.
struct LabelResponseBody: Encodable {
    var created: Int
    var replaced: Int
    var unchanged: Int
    var outcomes: [LabelWriteOutcome]

    init(_ result: LabelBatchResult) {
        created = result.created
        replaced = result.replaced
        unchanged = result.unchanged
        outcomes = result.outcomes
    }
}

/// `POST /v1/labels/delete` response body: how many labels the deletion removed.
struct LabelDeletionResponseBody: Encodable {
    var deleted: Int
}
