public import AttestGuardStore
public import AttestGuardWire

extension RuleActionRunBody {
    public init(_ run: RuleActionRunRecord) {
        self.init(
            appId: run.claim.appId, action: run.claim.action, target: run.claim.target, ruleId: run.claim.ruleId,
            description: run.claim.description, claimedAt: run.claim.claimedAt, heldUntil: run.claim.heldUntil, outcome: run.outcome.rawValue,
            detail: run.detail
        )
    }
}
