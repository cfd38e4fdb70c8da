/// Text from bytes that must be UTF-8, for the decoders of request bodies (JSON, CBOR), which make a few dozen
/// strings of every request.
///
/// The standard library's `String(validating:as:)` over a buffer runs its generic validator: a metadata lookup and a
/// call per scalar, about a thousand instructions for a short key (`Benchmarks/instructions.sh`). ASCII, which nearly
/// every field of the wire is, needs no validation at all; other text goes through `String(decoding:as:)`'s fast path,
/// which repairs invalid sequences, and is kept only when it came out byte for byte as it went in (a repair always
/// changes the bytes: it replaces an invalid sequence by U+FFFD's, which are valid).
package enum UTF8Text {
    /// The text of `bytes`; `nil` when they are not valid UTF-8.
    package static func string(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        var ascii = true
        for byte in bytes where byte >= 0x80 {
            ascii = false
            break
        }
        let text = String(decoding: bytes, as: UTF8.self)
        if ascii { return text }
        return text.utf8.elementsEqual(bytes) ? text : nil
    }

    /// ``string(_:)-(UnsafeBufferPointer<UInt8>)`` of raw bytes.
    package static func string(_ bytes: UnsafeRawBufferPointer) -> String? {
        string(bytes.assumingMemoryBound(to: UInt8.self))
    }

    /// ``string(_:)-(UnsafeBufferPointer<UInt8>)`` of an array's bytes.
    package static func string(_ bytes: [UInt8]) -> String? {
        bytes.withUnsafeBufferPointer { string($0) }
    }
}
