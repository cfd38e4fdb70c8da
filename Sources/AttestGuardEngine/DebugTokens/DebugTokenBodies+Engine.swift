public import AttestGuardStore
public import AttestGuardWire
public import Foundation

extension DebugTokenBody {
    /// `token` as the wire shows it at `now` (its state: revoked beats expired).
    public init(_ token: DebugTokenRecord, now: Date) {
        let state: State = token.revokedAt != nil ? .revoked : now >= token.expiresAt ? .expired : .active
        self.init(
            id: token.id, appId: token.appId, name: token.name, state: state, createdAt: token.createdAt, expiresAt: token.expiresAt,
            revokedAt: token.revokedAt, createdBy: token.createdBy, uses: token.uses, lastUsedAt: token.lastUsedAt
        )
    }
}
