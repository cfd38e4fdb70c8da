import Testing
import AttestCore

/// The CBOR decoder accepts every RFC 8949 form App Attest could use and rejects malformed or hostile input
/// with a typed error and the right offset.
struct CBORDecoderTests {
    let decoder = CBORDecoder()

    @Test(arguments: [
        ("00", CBOR.unsigned(0)),
        ("17", .unsigned(23)),
        ("1818", .unsigned(24)),
        ("190100", .unsigned(256)),
        ("1a000f4240", .unsigned(1_000_000)),
        ("1bffffffffffffffff", .unsigned(UInt64.max)),
        ("20", .negative(0)),
        ("3863", .negative(99)),
        ("3bffffffffffffffff", .negative(UInt64.max)),
        ("4401020304", .bytes([1, 2, 3, 4])),
        ("5f42010243030405ff", .bytes([1, 2, 3, 4, 5])),
        ("6449455446", .text("IETF")),
        ("7f657374726561646d696e67ff", .text("streaming")),
        ("83010203", .array([.unsigned(1), .unsigned(2), .unsigned(3)])),
        ("9f018202039f0405ffff", .array([.unsigned(1), .array([.unsigned(2), .unsigned(3)]), .array([.unsigned(4), .unsigned(5)])])),
        ("a201020304", .map([CBORMapEntry(key: .unsigned(1), value: .unsigned(2)), CBORMapEntry(key: .unsigned(3), value: .unsigned(4))])),
        ("bf6346756ef563416d7421ff", .map([CBORMapEntry(key: .text("Fun"), value: .boolean(true)), CBORMapEntry(key: .text("Amt"), value: .negative(1))])),
        ("c11a514b67b0", .tagged(1, .unsigned(1_363_896_240))),
        ("f4", .boolean(false)),
        ("f5", .boolean(true)),
        ("f6", .null),
        ("f7", .undefined),
        ("f0", .simple(16)),
        ("f8ff", .simple(255)),
        ("f93c00", .float(1.0)),
        ("f97bff", .float(65504.0)),
        ("f90001", .float(5.960464477539063e-8)),
        ("f9c400", .float(-4.0)),
        ("fa47c35000", .float(100000.0)),
        ("fb3ff199999999999a", .float(1.1)),
    ])
    func decodesRFC8949Examples(hex: String, expected: CBOR) throws {
        #expect(try decoder.decode(Hex.decode(hex)!) == expected)
    }

    @Test func halfPrecisionInfinityAndNaN() throws {
        #expect(try decoder.decode(Hex.decode("f97c00")!) == .float(.infinity))
        #expect(try decoder.decode(Hex.decode("f9fc00")!) == .float(-.infinity))
        guard case .float(let value) = try decoder.decode(Hex.decode("f97e00")!) else { Issue.record("not a float"); return }
        #expect(value.isNaN)
    }

    @Test(arguments: [
        ("", CBORError.Code.unexpectedEnd, 0),
        ("18", .unexpectedEnd, 1),
        ("1c", .reservedAdditionalInformation, 0),
        ("1f", .indefiniteLengthNotAllowed, 0),
        ("3f", .indefiniteLengthNotAllowed, 0),
        ("df00", .indefiniteLengthNotAllowed, 0),
        ("ff", .unexpectedBreak, 0),
        ("8201ff", .unexpectedBreak, 2),
        ("5f01ff", .invalidIndefiniteChunk, 1),
        ("5f6161ff", .invalidIndefiniteChunk, 1),
        ("5f5f4101ffff", .invalidIndefiniteChunk, 1),
        ("62c328", .invalidUTF8, 0),
        ("a201010102", .duplicateMapKey, 3),
        ("f818", .invalidSimpleValue, 0),
        ("5a7fffffff00", .lengthExceedsInput, 0),
        ("9b7fffffffffffffff", .lengthExceedsInput, 0),
        ("bb7fffffffffffffff", .lengthExceedsInput, 0),
        ("9f01", .unexpectedEnd, 2),
        ("bf0102ff00", .trailingBytes, 4),
        ("bf01ff", .unexpectedBreak, 2),
        ("0000", .trailingBytes, 1),
    ])
    func rejectsMalformedInput(hex: String, code: CBORError.Code, offset: Int) {
        do {
            _ = try decoder.decode(Hex.decode(hex)!)
            Issue.record("\(hex) decoded")
        } catch {
            #expect(error.code == code, "\(hex): \(error)")
            #expect(error.offset == offset, "\(hex): \(error)")
        }
    }

    @Test func nestingBombsStopAtTheDepthLimit() {
        for opener: UInt8 in [0x81, 0x9F, 0xA1, 0xC6] {
            let bomb = [UInt8](repeating: opener, count: 100_000)
            #expect(throws: CBORError.self) { try decoder.decode(bomb) }
            do { _ = try decoder.decode(bomb) } catch { #expect(error.code == .depthLimitExceeded) }
        }
        let deepButAllowed = [UInt8](repeating: 0x81, count: 15) + [0x00]
        #expect((try? decoder.decode(deepButAllowed)) != nil)
    }

    @Test func manySmallItemsStopAtTheItemLimit() {
        let array = [0x9F] + [UInt8](repeating: 0x00, count: 10_000) + [0xFF]
        do { _ = try decoder.decode(array); Issue.record("decoded") } catch { #expect(error.code == .itemLimitExceeded) }
    }

    @Test func oversizedInputIsRejectedBeforeDecoding() {
        let small = CBORDecoder(limits: .init(maximumInputSize: 8))
        do { _ = try small.decode([UInt8](repeating: 0, count: 9)); Issue.record("decoded") } catch { #expect(error.code == .sizeLimitExceeded) }
    }

    @Test func decodePrefixReportsConsumedBytes() throws {
        let (item, consumed) = try decoder.decodePrefix([0x82, 0x01, 0x02, 0xA0, 0xFF])
        #expect(item == .array([.unsigned(1), .unsigned(2)]))
        #expect(consumed == 3)
    }

    @Test func encoderRoundTripsThroughTheDecoder() throws {
        let item = CBOR.map([
            CBORMapEntry(key: .text("fmt"), value: .text("apple-appattest")),
            CBORMapEntry(key: .negative(2), value: .bytes([UInt8](repeating: 9, count: 300))),
            CBORMapEntry(key: .unsigned(70_000), value: .array([.null, .undefined, .boolean(true), .simple(99), .float(-2.5), .tagged(24, .bytes([1]))])),
            CBORMapEntry(key: .unsigned(UInt64.max), value: .negative(UInt64.max)),
        ])
        #expect(try decoder.decode(CBOREncoder.encode(item)) == item)
    }

    @Test func accessorsAnswerNilForTheWrongType() {
        let map = CBOR.map([CBORMapEntry(key: .text("a"), value: .unsigned(1)), CBORMapEntry(key: .negative(0), value: .text("x"))])
        #expect(map["a"]?.integerValue == 1)
        #expect(map[-1]?.textValue == "x")
        #expect(map["a"]?.bytesValue == nil)
        #expect(CBOR.unsigned(1)["a"] == nil)
        #expect(CBOR.unsigned(UInt64.max).integerValue == nil)
        #expect(CBOR.negative(0).integerValue == -1)
    }
}
