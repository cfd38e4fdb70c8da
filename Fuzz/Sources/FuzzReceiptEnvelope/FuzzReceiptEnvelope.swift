// Fuzzes AppleReceipts.ReceiptEnvelope(_:) (BER CMS SignedData, the certificates it carries, the one
// SignerInfo) and, on what it accepts, Receipt(payload:) on the encapsulated content — the parsing half of
// ReceiptVerifier.verify (the async signature/chain half is not fuzzed).
import AppleReceipts
import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzReceiptEnvelope(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let bytes = fuzzInput(start, count)
    let envelope: ReceiptEnvelope
    do {
        envelope = try ReceiptEnvelope(bytes)
    } catch {
        _ = error.description
        return 0
    }
    fuzzCheck(!bytes.isEmpty && bytes.count <= ReceiptEnvelope.maximumSize, "accepted \(bytes.count) bytes")
    fuzzCheck((try? ReceiptEnvelope.content(of: bytes)) == envelope.content, "content(of:) differs from init's content")
    for certificate in envelope.certificates { _ = certificate.description.count }
    if let receipt = try? Receipt(payload: envelope.content) {
        inspect(receipt)
    }
    return 0
}
