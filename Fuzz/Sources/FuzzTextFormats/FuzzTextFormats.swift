// Fuzzes the small text parsers: AppleReceipts.ISO8601Timestamp.parse (receipt time fields) and
// AttestCore.Hex.decode (CLI arguments, keys), with format/encode round trips.
import AppleReceipts
import AttestCore
import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTextFormats(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let bytes = fuzzInput(start, count)
    guard let text = String(validating: bytes, as: UTF8.self) else { return 0 }

    if let date = ISO8601Timestamp.parse(text) {
        fuzzCheck(text.utf8.count >= 20 && text.utf8.count <= 40 && text.hasSuffix("Z"), "accepted \"\(text)\"")
        checkTimestamp(date)
        // Text already in the canonical form (upper-case T, seconds below 60, no fraction or exactly
        // milliseconds, as Apple writes them) must format back to itself (".000" added when there is no fraction).
        if bytes[10] == UInt8(ascii: "T"), bytes[17] != UInt8(ascii: "6"), bytes.count == 20 || bytes.count == 24 {
            let expected = bytes.count == 24 ? text : String(decoding: bytes[0..<19], as: UTF8.self) + ".000Z"
            let formatted = ISO8601Timestamp.format(date)
            fuzzCheck(formatted == expected, "\"\(text)\" formats back as \"\(formatted)\"")
        }
    }

    if let decoded = Hex.decode(text) {
        fuzzCheck(decoded.count * 2 == bytes.count, "Hex.decode gave \(decoded.count) bytes for \(bytes.count) digits")
        fuzzCheck(Hex.encode(decoded) == text.lowercased(), "Hex.encode(Hex.decode(x)) != lowercase(x)")
    }
    return 0
}
