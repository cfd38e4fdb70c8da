// Fuzzes the small text parsers: AttestGuardWire.RFC3339.parse (every date the API, the CLI, the client and receipts
// read) and AttestCore.Hex.decode (CLI arguments, keys), with format/encode round trips.
import AttestCore
import AttestGuardWire
import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTextFormats(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let bytes = fuzzInput(start, count)
    guard let text = String(validating: bytes, as: UTF8.self) else { return 0 }

    if let date = RFC3339.parse(text) {
        let last = bytes[bytes.count - 1]
        let offset = bytes.count >= 25 && (bytes[bytes.count - 6] == UInt8(ascii: "+") || bytes[bytes.count - 6] == UInt8(ascii: "-"))
        fuzzCheck(bytes.count >= 20 && bytes.count <= 46 && (last == UInt8(ascii: "Z") || last == UInt8(ascii: "z") || offset), "accepted \"\(text)\"")
        checkTimestamp(date)
        // Text already in the canonical form (upper-case T, seconds below 60, no fraction or exactly
        // milliseconds, as Apple writes them) must format back to itself (".000" added when there is no fraction).
        if last == UInt8(ascii: "Z"), bytes[10] == UInt8(ascii: "T"), bytes[17] != UInt8(ascii: "6"), bytes.count == 20 || bytes.count == 24 {
            let expected = bytes.count == 24 ? text : String(decoding: bytes[0..<19], as: UTF8.self) + ".000Z"
            let formatted = RFC3339.format(date)
            fuzzCheck(formatted == expected, "\"\(text)\" formats back as \"\(formatted)\"")
        }
    }

    if let decoded = Hex.decode(text) {
        fuzzCheck(decoded.count * 2 == bytes.count, "Hex.decode gave \(decoded.count) bytes for \(bytes.count) digits")
        fuzzCheck(Hex.encode(decoded) == text.lowercased(), "Hex.encode(Hex.decode(x)) != lowercase(x)")
    }
    return 0
}
