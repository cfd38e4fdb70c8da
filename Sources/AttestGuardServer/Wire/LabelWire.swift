import AttestGuardEngine
import AttestVocabulary
import Foundation
import AttestGuardWire

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
