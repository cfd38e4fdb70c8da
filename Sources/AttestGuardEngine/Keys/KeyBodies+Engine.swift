public import AttestGuardWire
import Foundation

extension KeyBody {
    /// A key as the key routes and attestation answers show it.
    public init(_ key: AttestedKey, receipt: KeyReceipt?) {
        self.init(
            appId: key.appId, keyId: key.keyId.base64, userId: key.userId, deviceId: key.deviceId, environment: key.environment.rawValue,
            status: key.status.rawValue, counter: key.counter, attestedAt: key.attestedAt, lastAssertionAt: key.lastAssertionAt,
            statusChangedAt: key.statusChangedAt, supersededBy: key.supersededBy?.base64, osVersion: key.osVersion,
            receipt: receipt.map(ReceiptSummary.init)
        )
        validationCategory = key.validationCategory?.name
        bundleVersion = key.bundleVersion
    }
}

extension KeyBody.ReceiptSummary {
    /// A key's receipt as the key routes show it.
    public init(_ receipt: KeyReceipt) {
        self.init(
            type: receipt.type.rawValue, createdAt: receipt.createdAt, notBefore: receipt.notBefore, expiresAt: receipt.expiresAt,
            riskMetric: receipt.riskMetric, metricStale: receipt.metricStale, refreshedAt: receipt.refreshedAt,
            nextRefreshAt: receipt.nextRefreshAt, lastOutcome: receipt.lastOutcome
        )
    }
}

extension KeyHistoryBody {
    /// A key's history as the history route and `attestguard keys history --json` show it.
    public init(_ history: KeyHistory) {
        self.init(
            appId: history.key.appId, keyId: history.key.keyId.base64, status: history.key.status.rawValue,
            receipt: history.receipt.map {
                Receipt(summary: KeyBody.ReceiptSummary($0), lastAttemptAt: $0.lastAttemptAt, failedAttempts: $0.failedAttempts)
            },
            riskMetrics: history.riskMetrics.map { RiskMetric(riskMetric: $0.riskMetric, receiptCreatedAt: $0.receiptCreatedAt, observedAt: $0.observedAt) }
        )
    }
}

extension DecisionPageBody {
    /// A page of logged decisions as the decisions route and `attestguard decisions --json` show it.
    public init(_ page: DecisionPage) {
        self.init(appId: page.appId, from: page.from, to: page.to, decisions: page.decisions.map(Decision.init), next: page.next?.text)
    }
}

extension DecisionPageBody.Decision {
    /// One logged decision.
    public init(_ logged: LoggedDecision) {
        self.init(
            decidedAt: logged.decidedAt, endpoint: logged.endpoint.rawValue, decision: logged.decision.rawValue,
            ruleDecision: logged.ruleDecision.rawValue, score: logged.score, ruleSetVersion: logged.ruleSetVersion, keyId: logged.keyId,
            reasons: logged.fired.map { DecisionPageBody.Reason(ruleId: $0.ruleId, score: $0.score, message: $0.reason) },
            // Written by the server itself; a snapshot that does not read back shows as no signals.
            signals: (try? JSONDecoder().decode([String: ScalarValue?].self, from: Data(logged.signals.utf8))) ?? [:]
        )
    }
}
