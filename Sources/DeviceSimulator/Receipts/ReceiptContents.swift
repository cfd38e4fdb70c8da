public import Foundation
public import AppleReceipts
public import AttestVocabulary
import AttestGuardWire

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
        environment == .development ? "sandbox" : environment.rawValue
    }

    /// The payload fields in Apple's order: ATTEST receipts carry 2, 3, 4, 5, 6, 7, 12, 21; refreshed
    /// RECEIPT receipts put the risk metric and type first: 17, 6, 2, 3, 4, 5, 7, 12, 19, 21. Extras go last.
    public var fields: [ReceiptField] {
        func text(_ type: Int, _ value: String) -> ReceiptField { ReceiptField(type: type, value: Array(value.utf8)) }
        var leading: [ReceiptField] = []
        if let riskMetric { leading.append(text(ReceiptFieldType.riskMetric, String(riskMetric))) }
        let typeField = text(ReceiptFieldType.receiptType, type.rawValue)
        let identity = [
            text(ReceiptFieldType.appId, appId),
            ReceiptField(type: ReceiptFieldType.attestedPublicKey, value: attestedCertificate),
            ReceiptField(type: ReceiptFieldType.clientHash, value: clientHash),
            text(ReceiptFieldType.token, token),
        ]
        var fields: [ReceiptField]
        if type == .attest {
            fields = leading + identity + [typeField]
        } else {
            fields = leading + [typeField] + identity
        }
        fields.append(text(ReceiptFieldType.environment, environment))
        fields.append(text(ReceiptFieldType.creationTime, Self.appleTimestamp(creationTime)))
        if let notBefore { fields.append(text(ReceiptFieldType.notBefore, Self.appleTimestamp(notBefore))) }
        fields.append(text(ReceiptFieldType.expirationTime, Self.appleTimestamp(expirationTime)))
        return fields + extraFields
    }

    /// A timestamp as Apple writes it: milliseconds with trailing zeros dropped ("2020-11-27T22:41:40.46Z").
    static func appleTimestamp(_ date: Date) -> String {
        var text = RFC3339.format(date)
        guard let dot = text.lastIndex(of: ".") else { return text }
        text.removeLast()
        while text.last == "0" { text.removeLast() }
        if text.index(after: dot) == text.endIndex { text.removeLast() }
        return text + "Z"
    }
}
