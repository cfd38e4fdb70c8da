public import Foundation
public import AppleReceipts
public import AttestCore

/// The fields of a receipt the simulator mints, in Apple's field order.
public struct ReceiptContents: Sendable, Hashable {
    /// Field 2: the App ID.
    public var appId: String
    /// Field 3: the attested key as Apple sends it, the DER credential certificate.
    public var attestedCertificate: [UInt8]
    /// Field 4: the client hash (the clientDataHash on ATTEST receipts).
    public var clientHash: [UInt8]
    /// Field 5: the token, stable across a key's refreshes.
    public var token: String
    /// Field 6: ATTEST or RECEIPT.
    public var type: ReceiptType
    /// Field 7: "sandbox" or "production".
    public var environment: String
    /// Field 12: creation time.
    public var creationTime: Date
    /// Field 17: the risk metric (RECEIPT only).
    public var riskMetric: Int?
    /// Field 19: not before (RECEIPT only; Apple: creation + 24 h).
    public var notBefore: Date?
    /// Field 21: expiration (Apple: creation + 90 days).
    public var expirationTime: Date
    /// Fields appended after the known ones, to exercise unknown-field handling.
    public var extraFields: [ReceiptField]

    public init(
        appId: String,
        attestedCertificate: [UInt8],
        clientHash: [UInt8],
        token: String,
        type: ReceiptType,
        environment: String,
        creationTime: Date,
        riskMetric: Int? = nil,
        notBefore: Date? = nil,
        expirationTime: Date? = nil,
        extraFields: [ReceiptField] = []
    ) {
        self.appId = appId
        self.attestedCertificate = attestedCertificate
        self.clientHash = clientHash
        self.token = token
        self.type = type
        self.environment = environment
        self.creationTime = creationTime
        self.riskMetric = riskMetric
        self.notBefore = notBefore
        self.expirationTime = expirationTime ?? creationTime.addingTimeInterval(90 * 86_400)
        self.extraFields = extraFields
    }

    /// The receipt environment field for an App Attest environment (Apple writes "sandbox" for development).
    public static func environmentField(for environment: AppAttestEnvironment) -> String {
        environment == .development ? "sandbox" : "production"
    }

    /// The payload fields in Apple's order: 2, 3, 4, 5, 6, 7, 12, (17), (19), 21, then extras.
    public var fields: [ReceiptField] {
        var fields = [
            ReceiptField(type: ReceiptFieldType.appId, value: Array(appId.utf8)),
            ReceiptField(type: ReceiptFieldType.attestedPublicKey, value: attestedCertificate),
            ReceiptField(type: ReceiptFieldType.clientHash, value: clientHash),
            ReceiptField(type: ReceiptFieldType.token, value: Array(token.utf8)),
            ReceiptField(type: ReceiptFieldType.receiptType, value: Array(type.rawValue.utf8)),
            ReceiptField(type: ReceiptFieldType.environment, value: Array(environment.utf8)),
            ReceiptField(type: ReceiptFieldType.creationTime, value: Array(ISO8601Timestamp.format(creationTime).utf8)),
        ]
        if let riskMetric {
            fields.append(ReceiptField(type: ReceiptFieldType.riskMetric, value: Array(String(riskMetric).utf8)))
        }
        if let notBefore {
            fields.append(ReceiptField(type: ReceiptFieldType.notBefore, value: Array(ISO8601Timestamp.format(notBefore).utf8)))
        }
        fields.append(ReceiptField(type: ReceiptFieldType.expirationTime, value: Array(ISO8601Timestamp.format(expirationTime).utf8)))
        return fields + extraFields
    }
}
