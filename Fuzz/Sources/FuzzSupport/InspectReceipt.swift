// Consistency checks on a decoded receipt, shared by the receipt harnesses.
import AppleReceipts
import AttestGuardWire
import Foundation

public func inspect(_ receipt: Receipt) {
    fuzzCheck(receipt.attestedPublicKeyX963.count == 65 && receipt.attestedPublicKeyX963.first == 0x04,
        "attested key is not a 65-byte uncompressed point")
    func first(_ type: Int) -> [UInt8]? { receipt.fields.first(where: { $0.type == type })?.value }
    fuzzCheck(first(ReceiptFieldType.appId) == Array(receipt.appId.utf8), "appId differs from field 2")
    fuzzCheck(first(ReceiptFieldType.attestedPublicKey) == receipt.attestedKey, "attestedKey differs from field 3")
    fuzzCheck(first(ReceiptFieldType.clientHash) == receipt.clientHash, "clientHash differs from field 4")
    fuzzCheck(first(ReceiptFieldType.receiptType) == Array(receipt.type.rawValue.utf8), "type differs from field 6")
    if let metric = receipt.riskMetric { fuzzCheck(metric >= 0, "negative risk metric \(metric)") }
    checkTimestamp(receipt.creationTime)
    if let date = receipt.notBefore { checkTimestamp(date) }
    if let date = receipt.expirationTime { checkTimestamp(date) }
    do {
        let again = try Receipt(fields: receipt.fields)
        fuzzCheck(again == receipt, "Receipt(fields:) of a decoded receipt's fields differs")
    } catch {
        fuzzFailure("Receipt(fields:) rejects a decoded receipt's fields: \(error)")
    }
}

/// The first instant RFC3339.format cannot write (10000-01-01T00:00:00Z; it clamps from there).
/// parse can still reach it: a leap second on 9999-12-31 ("9999-12-31T23:59:60.5Z").
public let firstUnformattableInstant: TimeInterval = 253_402_300_800

/// format then parse must give the instant back to the nearest millisecond (format rounds to the nearest
/// millisecond), and format must be stable.
public func checkTimestamp(_ date: Date) {
    guard date.timeIntervalSince1970 < firstUnformattableInstant - 0.001 else { return }
    let text = RFC3339.format(date)
    guard let parsed = RFC3339.parse(text) else {
        fuzzFailure("RFC3339.parse rejects its own format \"\(text)\" of \(date.timeIntervalSince1970)")
    }
    let difference = date.timeIntervalSince1970 - parsed.timeIntervalSince1970
    let slack = max(1e-6, date.timeIntervalSince1970.magnitude.ulp * 8)
    fuzzCheck(difference.magnitude <= 0.0005 + slack,
        "\(date.timeIntervalSince1970) formats as \"\(text)\", which parses to \(parsed.timeIntervalSince1970)")
    fuzzCheck(RFC3339.format(parsed) == text, "format is not stable for \"\(text)\"")
}
