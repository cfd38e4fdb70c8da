// Fuzzes AppleReceipts.Receipt(payload:) directly on the receipt payload (the CMS content: a BER SET OF
// { type INTEGER, version INTEGER, value OCTET STRING }), including field 3's certificate and the
// ISO-8601 time fields.
//
// Properties: no crash; a decoded receipt re-decodes from its own raw fields to an equal receipt, and its
// fields agree with the raw ones.
import AppleReceipts
import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzReceiptPayload(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let bytes = fuzzInput(start, count)
    let receipt: Receipt
    do {
        receipt = try Receipt(payload: bytes)
    } catch {
        _ = error.description
        return 0
    }
    inspect(receipt)
    return 0
}
