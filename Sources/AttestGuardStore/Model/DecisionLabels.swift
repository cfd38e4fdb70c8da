public import AttestVocabulary
import Foundation

/// The label that applies to each logged decision: of the labels of its subjects, its own (by request id) first,
/// then its key's, user's and device's (``LabelSubjectKind/precedence``); among one subject's sources, the latest
/// (`fraud` on a tie, then the source name).
public struct DecisionLabels: Sendable {
    private var bySubject: [Subject: FraudLabelRecord] = [:]

    struct Subject: Hashable {
        var appId: String
        var kind: LabelSubjectKind
        var subject: String
    }

    public init(_ labels: [FraudLabelRecord]) {
        for label in labels {
            let subject = Subject(appId: label.appId, kind: label.kind, subject: label.subject)
            if let held = bySubject[subject], !Self.wins(label, over: held) { continue }
            bySubject[subject] = label
        }
    }

    public var isEmpty: Bool { bySubject.isEmpty }

    /// The label that applies to `entry`, if any of its subjects has one.
    public func label(of entry: DecisionLogEntry) -> FraudLabelRecord? {
        for kind in LabelSubjectKind.precedence {
            guard let subject = Self.subject(of: entry, kind), let label = bySubject[Subject(appId: entry.appId, kind: kind, subject: subject)] else {
                continue
            }
            return label
        }
        return nil
    }

    /// How the log names the entry's subject of this kind.
    public static func subject(of entry: DecisionLogEntry, _ kind: LabelSubjectKind) -> String? {
        switch kind {
        case .decision: entry.requestId
        case .key: entry.keyId
        case .user: entry.userHash
        case .device: entry.deviceHash
        }
    }

    /// Whether `label` applies rather than `held`, two sources' labels of one subject: the later, `fraud` on a tie,
    /// then the source name.
    public static func wins(_ label: FraudLabelRecord, over held: FraudLabelRecord) -> Bool {
        if label.labelledAt != held.labelledAt { return label.labelledAt > held.labelledAt }
        if label.label != held.label { return label.label == .fraud }
        return label.source < held.source
    }
}
