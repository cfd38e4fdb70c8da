import AttestGuardEngine
import Foundation
import AttestVocabulary

/// A key on the wire (attestation responses and the key routes).
struct KeyBody: Encodable {
    struct ReceiptSummary: Encodable {
        var type: String
        var createdAt: Date
        var notBefore: Date?
        var expiresAt: Date?
        var riskMetric: Int?
        var metricStale: Bool
        var refreshedAt: Date?
        var nextRefreshAt: Date?
        var lastOutcome: String?

        init(_ receipt: KeyReceipt) {
            type = receipt.type.rawValue
            createdAt = receipt.createdAt
            notBefore = receipt.notBefore
            expiresAt = receipt.expiresAt
            riskMetric = receipt.riskMetric
            metricStale = receipt.metricStale
            refreshedAt = receipt.refreshedAt
            nextRefreshAt = receipt.nextRefreshAt
            lastOutcome = receipt.lastOutcome
        }
    }

    var appId: String
    var keyId: String
    var userId: String
    var deviceId: String?
    var environment: String
    var status: KeyStatus
    var counter: Int64
    var attestedAt: Date
    var lastAssertionAt: Date?
    var statusChangedAt: Date?
    var supersededBy: String?
    var osVersion: String?
    var receipt: ReceiptSummary?

    init(_ key: AttestedKey, receipt: KeyReceipt?) {
        appId = key.appId
        keyId = key.keyId.base64
        userId = key.userId
        deviceId = key.deviceId
        environment = key.environment.rawValue
        status = key.status
        counter = key.counter
        attestedAt = key.attestedAt
        lastAssertionAt = key.lastAssertionAt
        statusChangedAt = key.statusChangedAt
        supersededBy = key.supersededBy?.base64
        osVersion = key.osVersion
        self.receipt = receipt.map(ReceiptSummary.init)
    }
}
