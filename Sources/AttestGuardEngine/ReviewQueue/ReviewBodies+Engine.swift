public import AttestGuardStore
public import AttestGuardWire
public import Foundation

extension ReviewItemBody {
    /// The item as the routes show it at `now` (an item past its expiry shows `expired`).
    public init(_ item: ReviewItemRecord, at now: Date) {
        self.init(
            id: String(item.id), appId: item.appId, status: item.status(at: now).rawValue, subjectKind: item.subjectKind.rawValue,
            subject: item.subject, keyId: item.keyId, userHash: item.userHash, deviceHash: item.deviceHash, endpoint: item.endpoint.rawValue,
            action: item.action, score: item.score, reasons: item.fired.split(separator: ",").map(String.init), ruleSetVersion: item.ruleSetVersion,
            firstRequestId: item.firstRequestId, lastRequestId: item.lastRequestId, verdicts: item.verdicts, openedAt: item.openedAt,
            lastVerdictAt: item.lastVerdictAt, expiresAt: item.expiresAt, claimedBy: item.claimedBy, claimedAt: item.claimedAt,
            decidedBy: item.decidedBy, decidedAt: item.decidedAt, note: item.note, actions: ReviewActionBody.parse(item.followUps)
        )
    }
}

extension ReviewActionBody {
    /// The actions an item records, one `action: outcome` a line.
    static func parse(_ followUps: String) -> [ReviewActionBody] {
        followUps.split(separator: "\n").map { line in
            let parts = line.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            return ReviewActionBody(
                action: String(parts[0]), outcome: parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
            )
        }
    }
}
