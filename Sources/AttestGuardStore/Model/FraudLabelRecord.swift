public import AttestVocabulary
public import Foundation

/// One stored fraud label: a source's word (`chargebacks`, `support-case-123`) that a subject of an app was fraud or
/// legitimate, as of `labelledAt`. Users and devices are the decision log's keyed hashes, keys their standard
/// base64 id, decisions their request id, so that a label joins the log without a raw id being stored. One label
/// is kept per (app, subject, source).
public struct FraudLabelRecord: Sendable, Hashable {
    public var appId: String
    public var kind: LabelSubjectKind
    /// The request id, base64 key id, or keyed hash of the user or device.
    public var subject: String
    public var source: String
    public var label: FraudLabel
    public var labelledAt: Date

    public init(appId: String, kind: LabelSubjectKind, subject: String, source: String, label: FraudLabel, labelledAt: Date) {
        self.appId = appId
        self.kind = kind
        self.subject = subject
        self.source = source
        self.label = label
        self.labelledAt = labelledAt
    }

    /// What makes a label one: a source says one thing of a subject at a time. Its strings compare by their UTF-8
    /// bytes, as the stores' unique keys do (Swift's `==` would fold an NFD source into its NFC twin, and a batch
    /// would drop a label the store keeps apart).
    public struct Identity: Sendable, Hashable {
        public var appId: String
        public var kind: LabelSubjectKind
        public var subject: String
        public var source: String

        public init(appId: String, kind: LabelSubjectKind, subject: String, source: String) {
            self.appId = appId
            self.kind = kind
            self.subject = subject
            self.source = source
        }

        public static func == (lhs: Identity, rhs: Identity) -> Bool {
            lhs.kind == rhs.kind && lhs.appId.hasSameBytes(as: rhs.appId) && lhs.subject.hasSameBytes(as: rhs.subject)
                && lhs.source.hasSameBytes(as: rhs.source)
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(kind)
            for text in [appId, subject, source] {
                hasher.combine(text.utf8.count)
                for byte in text.utf8 { hasher.combine(byte) }
            }
        }
    }

    public var identity: Identity { Identity(appId: appId, kind: kind, subject: subject, source: source) }

    /// Whether this label takes the place of `stored` (the same identity): a different label as late or later. The
    /// same label again is unchanged whatever its time (the stored time is when the source first said so), and an
    /// older label never overwrites a newer one. The stores apply the same rule in SQL.
    public func replaces(_ stored: FraudLabelRecord) -> Bool {
        label != stored.label && labelledAt >= stored.labelledAt
    }

    /// The order of the labels a verdict reads (`ScoringFacts.labels`, `labels(appId:of:)` on both stores): by kind,
    /// subject and source, each by its UTF-8 bytes (PostgreSQL's `COLLATE "C"`, SQLite's `BINARY`).
    package static func precedesInStoreOrder(_ left: FraudLabelRecord, _ right: FraudLabelRecord) -> Bool {
        if left.kind != right.kind { return left.kind.rawValue.utf8.lexicographicallyPrecedes(right.kind.rawValue.utf8) }
        if !left.subject.hasSameBytes(as: right.subject) { return left.subject.utf8.lexicographicallyPrecedes(right.subject.utf8) }
        return left.source.utf8.lexicographicallyPrecedes(right.source.utf8)
    }

    /// Labels whose identity repeats within one batch, folded into one each with ``replaces(_:)`` in batch order,
    /// and for each input its index in the folded list (a batch stores each identity once, in one statement).
    package static func folded(_ labels: [FraudLabelRecord]) -> (labels: [FraudLabelRecord], positions: [Int]) {
        var folded: [FraudLabelRecord] = []
        var index: [Identity: Int] = [:]
        var positions: [Int] = []
        for label in labels {
            if let at = index[label.identity] {
                if label.replaces(folded[at]) { folded[at] = label }
                positions.append(at)
            } else {
                index[label.identity] = folded.count
                positions.append(folded.count)
                folded.append(label)
            }
        }
        return (folded, positions)
    }

    /// The outcome of each input of a batch, from the outcomes of its folded labels: a repeat within the batch is
    /// unchanged (the first of its identity reports what the batch did).
    package static func outcomes(positions: [Int], folded: [LabelWriteOutcome]) -> [LabelWriteOutcome] {
        var reported = Set<Int>()
        return positions.map { position in reported.insert(position).inserted ? folded[position] : .unchanged }
    }
}
