public import AttestVocabulary
import Foundation

/// Where fraud labels are kept, shared by every server process on the store.
public protocol LabelStore: LabelReader {
    /// Stores a batch of labels in one transaction, each idempotent on (app, kind, subject, source): returns, for
    /// each input in order, whether it was created, replaced an earlier label of its source
    /// (``FraudLabelRecord/replaces(_:)``), or changed nothing.
    func storeLabels(_ labels: [FraudLabelRecord]) async throws -> [LabelWriteOutcome]

    /// Deletes the labels of one subject of an app: those of `source`, or of every source when nil. Returns how many
    /// it deleted (0 when there were none: a deletion sent again changes nothing).
    func deleteLabels(appId: String, kind: LabelSubjectKind, subject: String, source: String?) async throws -> Int

    /// The labels of the subjects of `decisions`: their request ids, keys, users and devices, in their apps.
    func labels(for decisions: [DecisionLogEntry]) async throws -> [FraudLabelRecord]

    /// Every source's labels of `subjects` in the app, ordered by kind, subject and source, read from the primary (a
    /// verdict reads them: `label.*`).
    func labels(appId: String, of subjects: [LabelLookup]) async throws -> [FraudLabelRecord]

    /// The logged decision with this request id in the app (the newest, should a caller reuse an id).
    func decision(appId: String, requestId: String) async throws -> DecisionLogEntry?
}
