// Fuzzes AttestCore's CBOR decoder and encoder.
//
// Properties checked on every input:
// - decode and decodePrefix never crash; decode succeeds only when decodePrefix consumes the whole input,
//   and both then agree on the item;
// - round trip: anything that decodes re-encodes (definite lengths) to bytes that decode to an equal item
//   (skipped for items holding a NaN float, which is unequal to itself), and re-encoding that item gives
//   the same bytes again (holds even with NaN);
// - a decoder with tighter limits never accepts what the default decoder rejects, nor decodes differently.
import AttestCore
import FuzzSupport

private let decoder = CBORDecoder()
private let tightDecoder = CBORDecoder(limits: .init(maximumDepth: 4, maximumItemCount: 64, maximumInputSize: 1024))

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCBOR(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let bytes = fuzzInput(start, count)

    let prefix: (item: CBOR, consumed: Int)?
    do { prefix = try decoder.decodePrefix(bytes) } catch { prefix = nil }
    let whole: CBOR?
    do { whole = try decoder.decode(bytes) } catch { whole = nil }

    if let prefix {
        fuzzCheck(prefix.consumed >= 1 && prefix.consumed <= bytes.count, "decodePrefix consumed \(prefix.consumed) of \(bytes.count) bytes")
        fuzzCheck((whole != nil) == (prefix.consumed == bytes.count), "decode and decodePrefix disagree on whether the input is one item")
        if let whole { fuzzCheck(whole.containsNaN || whole == prefix.item, "decode and decodePrefix give different items") }
        _ = prefix.item.exerciseAccessors()
        checkRoundTrip(prefix.item)
    } else {
        fuzzCheck(whole == nil, "decode succeeded where decodePrefix failed")
    }

    if let tight = try? tightDecoder.decodePrefix(bytes) {
        guard let prefix else { fuzzFailure("tight-limit decoder accepted what the default decoder rejects") }
        fuzzCheck(tight.consumed == prefix.consumed, "tight-limit decoder consumed \(tight.consumed), default \(prefix.consumed)")
        fuzzCheck(tight.item.containsNaN || tight.item == prefix.item, "tight-limit decoder decoded a different item")
    }
    return 0
}

private func checkRoundTrip(_ item: CBOR) {
    let encoded = CBOREncoder.encode(item)
    // Half floats widen to 9-byte doubles, so the encoding may outgrow the decoder's size limit.
    guard encoded.count <= decoder.limits.maximumInputSize else { return }
    let decoded: CBOR
    do {
        decoded = try decoder.decode(encoded)
    } catch {
        fuzzFailure("re-encoded item does not decode: \(error); item \(item); encoding \(hex(encoded))")
    }
    if !item.containsNaN {
        fuzzCheck(decoded == item, "round trip changed the item: \(item) -> \(decoded)")
    }
    let reencoded = CBOREncoder.encode(decoded)
    fuzzCheck(reencoded == encoded, "encoding is not stable: \(hex(encoded)) -> \(hex(reencoded))")
}

private func hex(_ bytes: [UInt8]) -> String {
    bytes.prefix(256).map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
}
