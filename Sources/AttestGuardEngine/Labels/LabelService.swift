public import AttestGuardWire
public import AttestGuardStore
import AttestVocabulary
public import Foundation

/// Checks, stores and deletes fraud labels (`POST /v1/labels`, `attestguard labels import`, `POST /v1/labels/delete`):
/// each names a configured app and one subject, whose user and device ids are hashed with the decision log's key
/// (``VelocityKeying``) and whose key id is stored as the log's standard base64, so that a label joins the log and no
/// raw id is kept. A batch is stored whole or not at all.
public struct LabelService: Sendable {
    /// The most labels one batch (one request) may carry.
    public static let maximumBatch = 1_000
    /// The longest source, in UTF-8 bytes.
    public static let maximumSourceBytes = FraudLabel.maximumSourceBytes
    /// How far past the clock's now a label's time may be (a source's clock a little ahead).
    public static let futureTolerance: TimeInterval = 300

    let store: any LabelStore
    let apps: AppCatalog
    let keying: VelocityKeying
    let clock: any EngineClock

    /// - Parameter keying: The keyed hash the decision log's user and device hashes are made with.
    public init(store: any LabelStore, apps: AppCatalog, keying: VelocityKeying, clock: any EngineClock) {
        self.store = store
        self.apps = apps
        self.keying = keying
        self.clock = clock
    }

    /// The label as stored, from a submission.
    /// - Throws: `app_not_found` for an app not configured; `missing_field` without an app, subject, label or source;
    ///   `invalid_field` for two subjects, a label other than `fraud` or `legitimate`, a malformed id or source, or a
    ///   time more than ``futureTolerance`` ahead of the clock.
    public func validate(_ submission: LabelSubmission) throws(EngineError) -> FraudLabelRecord {
        let (appId, kind, subject) = try named(submission)
        guard let labelText = submission.label, !labelText.isEmpty else { throw EngineError.invalid(.missingField, "label is required") }
        guard let label = FraudLabel(rawValue: labelText) else {
            throw EngineError.invalid(.invalidField, "label must be fraud or legitimate")
        }
        guard let source = submission.source, !source.isEmpty else { throw EngineError.invalid(.missingField, "source is required") }
        try Self.check(source: source)
        let now = clock.now()
        let labelledAt = submission.labelledAt ?? now
        guard labelledAt.timeIntervalSince(now) <= Self.futureTolerance else {
            throw EngineError.invalid(.invalidField, "labelledAt is in the future")
        }
        return FraudLabelRecord(appId: appId, kind: kind, subject: subject, source: source, label: label, labelledAt: labelledAt)
    }

    /// Deletes the labels of one subject of an app (`POST /v1/labels/delete`): those of its `source`, or of every
    /// source without one. Returns how many it deleted; 0 when there were none, so a deletion sent again is harmless.
    /// - Throws: as ``validate(_:)`` for the app, the subject and the source; `invalid_field` for a `label` or a
    ///   `labelledAt`, which would suggest only some of the subject's labels go; `store_unavailable`.
    public func delete(_ submission: LabelSubmission) async throws -> Int {
        let (appId, kind, subject) = try named(submission)
        guard submission.label?.isEmpty ?? true, submission.labelledAt == nil else {
            throw EngineError.invalid(.invalidField, "a deletion names the subject and optionally a source, not a label or a time")
        }
        let source = submission.source.flatMap { $0.isEmpty ? nil : $0 }
        if let source { try Self.check(source: source) }
        return try await withStore { try await store.deleteLabels(appId: appId, kind: kind, subject: subject, source: source) }
    }

    /// The app, the kind of subject and the subject as stored, of a submission naming exactly one subject.
    private func named(_ submission: LabelSubmission) throws(EngineError) -> (appId: String, kind: LabelSubjectKind, subject: String) {
        guard let appId = submission.appId, !appId.isEmpty else { throw EngineError.invalid(.missingField, "appId is required") }
        _ = try apps.policy(for: appId)
        let named: [(LabelSubjectKind, String)] = [
            (.decision, submission.requestId), (.key, submission.keyId), (.user, submission.userId), (.device, submission.deviceId),
        ].compactMap { kind, text in text.map { (kind, $0) } }
        guard let (kind, text) = named.first else {
            throw EngineError.invalid(.missingField, "name the subject: one of requestId, keyId, userId and deviceId")
        }
        guard named.count == 1 else {
            throw EngineError.invalid(.invalidField, "name one subject only, not \(named.map(\.0.field).joined(separator: " and "))")
        }
        return (appId, kind, try Self.subject(kind, text, keying: keying))
    }

    private static func check(source: String) throws(EngineError) {
        guard source.utf8.count <= maximumSourceBytes, (try? Identifier(source, field: "source")) != nil else {
            throw EngineError.invalid(.invalidField, "source must be 1-\(maximumSourceBytes) bytes of printable characters")
        }
    }

    /// Stores checked labels in one transaction.
    /// - Throws: `too_many_labels` for more than ``maximumBatch``; `store_unavailable`.
    public func store(_ labels: [FraudLabelRecord]) async throws -> LabelBatchResult {
        guard labels.count <= Self.maximumBatch else {
            throw EngineError.invalid(.tooManyLabels, "a batch carries at most \(Self.maximumBatch) labels, not \(labels.count)")
        }
        return LabelBatchResult(outcomes: try await withStore { try await store.storeLabels(labels) })
    }

    /// Reads and checks every label of a `POST /v1/labels` body, then stores them all in one transaction: the first
    /// one refused refuses the batch, its message starting `labels[i]: ` when there are several.
    /// - Throws: `too_many_labels` for more than ``maximumBatch``; a label's refusal; `store_unavailable`.
    public func store(_ batch: [LabelFields]) async throws -> LabelBatchResult {
        guard batch.count <= Self.maximumBatch else {
            throw EngineError.invalid(.tooManyLabels, "a batch carries at most \(Self.maximumBatch) labels, not \(batch.count)")
        }
        var labels: [FraudLabelRecord] = []
        labels.reserveCapacity(batch.count)
        for (index, fields) in batch.enumerated() {
            do {
                labels.append(try validate(try fields.submission()))
            } catch {
                guard batch.count > 1 else { throw error }
                throw EngineError(error.kind, code: error.code, "labels[\(index)]: \(error.message)")
            }
        }
        return try await store(labels)
    }

    /// Stores checked labels in one transaction whatever their number (`attestguard labels import`: a whole file,
    /// all or nothing).
    /// - Throws: `store_unavailable`.
    public func storeAll(_ labels: [FraudLabelRecord]) async throws -> LabelBatchResult {
        LabelBatchResult(outcomes: try await withStore { try await store.storeLabels(labels) })
    }

    /// The subject as the decision log names it: a request id as given, a key id as standard base64, a user or a
    /// device as its keyed hash.
    static func subject(_ kind: LabelSubjectKind, _ text: String, keying: VelocityKeying) throws(EngineError) -> String {
        switch kind {
        case .decision:
            guard RequestIdGrammar.isWellFormed(text) else {
                throw EngineError.invalid(.invalidField, "requestId must be 1-\(RequestIdGrammar.maximumBytes) ASCII letters, digits, -, _, . or :")
            }
            return text
        case .key:
            return try KeyId(base64: text).base64
        case .user:
            return keying.subject(.user, try Identifier(text, field: kind.field).value)
        case .device:
            return keying.subject(.device, try Identifier(text, field: kind.field).value)
        }
    }
}

extension Engine {
    /// The fraud labels of this engine's store, hashed with its decision log's key.
    public var labels: LabelService {
        LabelService(store: store, apps: apps, keying: settings.velocityKeying, clock: clock)
    }
}
