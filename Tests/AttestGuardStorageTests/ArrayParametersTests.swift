import AttestTestSupport
import Crypto
import Foundation
import NIOCore
import PostgresNIO
import AttestGuardStore
@testable import AttestGuardPostgres
import Testing

@Suite("Array parameters written from a batch's entries")
struct ArrayParametersTests {
    static let elementSets: [[String]] = [
        [],
        ["one"],
        ["", "sübject", String(repeating: "x", count: 300), "tab\there"],
        (0..<200).map { "entry \($0)" },
    ]

    /// Instants around the epochs and at fractions of a microsecond, which the encoders truncate toward zero.
    static let instants: [Date] = [
        Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 946_684_800), Date(timeIntervalSince1970: 946_684_799.9999996),
        Date(timeIntervalSince1970: 1_764_633_600.123456789), Date(timeIntervalSince1970: -1_000_000.5), Date(timeIntervalSince1970: 4_102_444_800.000001),
    ]

    /// The bytes `value` encodes to, written after `offset` bytes already in the buffer (a statement's earlier
    /// parameters), at any alignment.
    static func bytes(_ value: some PostgresNonThrowingEncodable, offset: Int = 0) -> [UInt8] {
        var buffer = ByteBuffer()
        buffer.writeRepeatingByte(0xA5, count: offset)
        value.encode(into: &buffer, context: .default)
        buffer.moveReaderIndex(forwardBy: offset)
        return Array(buffer.readableBytesView)
    }

    /// Whether every element type's array parameter writes what postgres-nio writes for the Swift array.
    static func sameBytes(_ elements: [String], offset: Int) -> Bool {
        let lengths = elements.map { Int64($0.utf8.count) - 7 }
        let instants = elements.indices.map { Self.instants[$0 % Self.instants.count].addingTimeInterval(Double($0) * 0.0000013) }
        let entries = elements.enumerated().map {
            Entry(text: $0.element, position: Int64($0.offset), bytes: Array($0.element.utf8.reversed()), last: $0.offset % 3 == 0)
        }
        let reversed: ReversedCollection<[String]> = elements.reversed()
        return bytes(ArrayParameter(elements), offset: offset) == bytes(elements, offset: offset)
            && bytes(ArrayParameter(elements) { "\($0.pointee)✓" }, offset: offset) == bytes(elements.map { "\($0)✓" }, offset: offset)
            && bytes(ArrayParameter(lengths), offset: offset) == bytes(lengths, offset: offset)
            && bytes(ArrayParameter(elements) { Int32($0.pointee.utf8.count) }, offset: offset) == bytes(elements.map { Int32($0.utf8.count) }, offset: offset)
            && bytes(ArrayParameter(elements) { $0.pointee.count % 2 == 0 }, offset: offset) == bytes(elements.map { $0.count % 2 == 0 }, offset: offset)
            && bytes(ArrayParameter(elements) { Double($0.pointee.utf8.count) / 3 }, offset: offset) == bytes(elements.map { Double($0.utf8.count) / 3 }, offset: offset)
            && bytes(ArrayParameter(instants), offset: offset) == bytes(instants, offset: offset)
            && bytes(ByteaArrayParameter(elements) { Array($0.pointee.utf8) }, offset: offset) == bytes(elements.map { ByteBuffer(string: $0) }, offset: offset)
            // A source without contiguous storage is read through copies, in its own order.
            && bytes(ArrayParameter(reversed), offset: offset) == bytes(Array(reversed), offset: offset)
            && bytes(ByteaArrayParameter(reversed) { Array($0.pointee.utf8) }, offset: offset)
                == bytes(reversed.map { ByteBuffer(string: $0) }, offset: offset)
            // Fields of entries read where the array stores them.
            && bytes(ArrayParameter(entries) { $0.pointee.text }, offset: offset) == bytes(elements, offset: offset)
            && bytes(ArrayParameter(entries) { $0.pointee.position }, offset: offset) == bytes(entries.map(\.position), offset: offset)
            && bytes(ArrayParameter(entries) { $0.pointee.last }, offset: offset) == bytes(entries.map(\.last), offset: offset)
            && bytes(ByteaArrayParameter(entries) { $0.pointee.bytes }, offset: offset) == bytes(entries.map { ByteBuffer(bytes: $0.bytes) }, offset: offset)
    }

    /// An entry of a batch as the statements read them: fields of several kinds, read one at a time; the last one
    /// leaves padding, so that the entry's stride is more than its size.
    struct Entry {
        var text: String
        var position: Int64
        var bytes: [UInt8]
        var last: Bool
    }

    @Test("each writes the bytes postgres-nio writes for a Swift array: empty, one, many, long and empty elements, at any offset")
    func sameBytesAsSwiftArrays() {
        for elements in Self.elementSets {
            for offset in 0...3 {
                #expect(Self.sameBytes(elements, offset: offset), "\(elements.count) elements after \(offset) bytes")
            }
        }
        #expect(Self.bytes(ArrayParameter(Self.instants)) == Self.bytes(Self.instants))
        let extremes: [Double] = [0, -0.0, .infinity, -.infinity, .nan, .leastNonzeroMagnitude, .greatestFiniteMagnitude]
        #expect(Self.bytes(ArrayParameter(extremes)) == Self.bytes(extremes))
        #expect(Self.bytes(ArrayParameter([Int64.min, -1, 0, .max])) == Self.bytes([Int64.min, -1, 0, .max]))
        #expect(Self.bytes(ArrayParameter([Int32.min, -1, 0, .max])) == Self.bytes([Int32.min, -1, 0, .max]))
    }

    @Test("an array's elements are read where the array stores them, in order; other collections' from copies")
    func readsArraysInPlace() {
        for count in [0, 1, 2, 17] {
            let entries = (0..<count).map { Entry(text: "entry \($0)", position: Int64($0), bytes: [UInt8(truncatingIfNeeded: $0)], last: true) }
            var addresses: [UnsafeRawPointer] = []
            entries.forEachStoredElement { addresses.append(UnsafeRawPointer($0)) }
            entries.withUnsafeBufferPointer { stored in
                #expect(addresses == stored.indices.map { UnsafeRawPointer(stored.baseAddress! + $0) }, "\(count) entries")
            }
            var positions: [Int64] = []
            let reversedEntries: ReversedCollection<[Entry]> = entries.reversed()
            reversedEntries.forEachStoredElement { positions.append($0.pointee.position) }
            #expect(positions == (0..<Int64(count)).reversed())
        }
    }

    @Test("random arrays of random text write the bytes postgres-nio writes")
    func sameBytesForRandomText() {
        var generator = SystemRandomNumberGenerator()
        let alphabet: [Character] = ["a", "Z", "0", " ", "\t", "\"", "\\", "é", "ü", "✓", "😀", "\u{0301}", "\u{7F}"]
        for _ in 0..<200 {
            let count = Int.random(in: 0...40, using: &generator)
            let elements = (0..<count).map { _ in
                String((0..<Int.random(in: 0...70, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! })
            }
            let offset = Int.random(in: 0...7, using: &generator)
            #expect(Self.sameBytes(elements, offset: offset), "\(elements)")
        }
    }

    @Test("each reaches PostgreSQL as the array postgres-nio binds from a Swift array: every element type, empty, one, many, long and empty elements", arguments: StoreBackend.postgresOnly)
    func sameAsSwiftArrays(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = try #require(test.store as? PostgresRiskStore)
            for elements in Self.elementSets {
                var bindings = PostgresBindings()
                bindings.append(ByteaArrayParameter(elements) { Array($0.pointee.utf8) })
                bindings.append(elements.map { ByteBuffer(string: $0) })
                var appended = ByteaArrayParameter()
                for element in elements { appended.append(element.utf8) }
                bindings.append(appended)
                bindings.append(ArrayParameter(elements) { $0.pointee })
                bindings.append(elements)
                bindings.append(ArrayParameter(elements) { Int64($0.pointee.utf8.count) })
                bindings.append(elements.map { Int64($0.utf8.count) })
                bindings.append(ArrayParameter(elements) { $0.pointee.count % 2 == 0 })
                bindings.append(elements.map { $0.count % 2 == 0 })
                let instants = elements.indices.map { Self.instants[$0 % Self.instants.count] }
                bindings.append(ArrayParameter(instants))
                bindings.append(instants)
                bindings.append(ArrayParameter(elements) { Double($0.pointee.utf8.count) / 3 })
                bindings.append(elements.map { Double($0.utf8.count) / 3 })
                bindings.append(ArrayParameter(elements) { Int32($0.pointee.utf8.count) })
                bindings.append(elements.map { Int32($0.utf8.count) })
                let sql = """
                    SELECT $1::bytea[] IS NOT DISTINCT FROM $2::bytea[], $3::bytea[] IS NOT DISTINCT FROM $2::bytea[],
                           $4::text[] IS NOT DISTINCT FROM $5::text[], $6::int8[] IS NOT DISTINCT FROM $7::int8[],
                           $8::bool[] IS NOT DISTINCT FROM $9::bool[], coalesce(cardinality($1::bytea[]), 0)::int8,
                           coalesce(cardinality($4::text[]), 0)::int8, $10::timestamptz[] IS NOT DISTINCT FROM $11::timestamptz[],
                           $12::float8[] IS NOT DISTINCT FROM $13::float8[], $14::int4[] IS NOT DISTINCT FROM $15::int4[]
                    """
                let rows = try await store.client().query(PostgresQuery(unsafeSQL: sql, binds: bindings)).collect()
                let row = try #require(rows.first)
                let (bytea, appendedBytea, text, int8, bool, byteaCount, textCount, instant, float8, int4) =
                    try row.decode((Bool, Bool, Bool, Bool, Bool, Int64, Int64, Bool, Bool, Bool).self)
                #expect(bytea && appendedBytea && text && int8 && bool && instant && float8 && int4, "\(elements.count) elements")
                #expect(byteaCount == Int64(elements.count) && textCount == Int64(elements.count))
            }
        }
    }

    @Test("a velocity series id hashed part by part is the joined text's, as SQL's velocity_series() reads it")
    func velocitySeriesIdOfJoinedText() {
        for (app, subject, event) in [("A.app", "s", "assertions"), ("ABCDE12345.com.example.app", "sübject", "failed_verifications"), ("", "", "")] {
            let joined = Array(SHA256.hash(data: Array("\(app)/\(event)/60/\(subject)".utf8)).prefix(16))
            #expect(VelocitySeriesId.make(appId: app, subject: subject, event: event) == joined)
            #expect(VelocitySeriesId.make(appId: app, subject: subject, event: event) == joined, "the memo's id")
            #expect(VelocitySeriesId.digest(of: .init(appId: app, subject: subject, event: event)) == joined)
            var ids = ByteaArrayParameter()
            VelocitySeriesId.append(appId: app, subject: subject, event: event, to: &ids)
            var encoded = ByteBuffer()
            ids.encode(into: &encoded, context: .default)
            // One element: the 20-byte array header, the element's length, its 16 bytes.
            #expect(ids.count == 1 && encoded.readableBytes == 20 + 4 + 16)
            #expect(encoded.getBytes(at: encoded.writerIndex - 16, length: 16) == joined)
        }
    }

    @Test("the prefix of a digest of parts is the joined text's: short, long, non-ASCII, empty and random parts")
    func digestPrefixOfParts() {
        let fixed = ["", "a", "sübject ✓", String(repeating: "long text ", count: 100), "exactly15 bytes", "\u{0}"]
        var generator = SystemRandomNumberGenerator()
        for round in 0..<300 {
            let parts = (0..<Int.random(in: 0...7, using: &generator)).map { _ in
                round < 100 ? fixed.randomElement(using: &generator)! : String((0..<Int.random(in: 0...90, using: &generator)).map { _ in
                    Character(Unicode.Scalar(UInt8.random(in: 0x20...0x7e, using: &generator)))
                })
            }
            let joined = Array(SHA256.hash(data: Array(parts.joined().utf8)))
            for length in [4, 16, 32] {
                #expect(SHA256.prefix(length, ofUTF8: parts) == Array(joined.prefix(length)), "\(parts.map { $0.prefix(12) })")
            }
        }
    }

    @Test("sightings are ordered by series then member in byte order, one per pair with its latest minute")
    func sightingsOrder() {
        var generator = SystemRandomNumberGenerator()
        func bytes() -> [UInt8] { (0..<Int.random(in: 0...4, using: &generator)).map { _ in UInt8.random(in: 0...2, using: &generator) * 127 } }
        for _ in 0..<2_000 {
            let left = bytes(), right = bytes()
            let order: Int = AddDistinctSightingsStatement.byteOrder(left, right)
            let precedes: Bool = left.lexicographicallyPrecedes(right)
            let equal: Bool = left == right
            #expect((order < 0) == precedes, "\(left) \(right)")
            #expect((order == 0) == equal, "\(left) \(right)")
        }
        let sightings: [DistinctSighting] = (0..<500).map { _ in
            DistinctSighting(series: bytes(), member: bytes(), lastSeen: Int64.random(in: 0...9, using: &generator))
        }
        let written: [DistinctSighting] = AddDistinctSightingsStatement(sightings).sightings
        // The explicit types and the named order keep the type checker from trying every overload of the literals
        // and operators here (seconds of the module's build otherwise).
        var latest: [[[UInt8]]: Int64] = [:]
        for sighting in sightings {
            latest[[sighting.series, sighting.member], default: .min] = max(latest[[sighting.series, sighting.member], default: .min], sighting.lastSeen)
        }
        func precedes(_ left: (key: [[UInt8]], value: Int64), _ right: (key: [[UInt8]], value: Int64)) -> Bool {
            if left.key[0] != right.key[0] { return left.key[0].lexicographicallyPrecedes(right.key[0]) }
            return left.key[1].lexicographicallyPrecedes(right.key[1])
        }
        let expected: [(key: [[UInt8]], value: Int64)] = latest.sorted(by: precedes)
        let writtenPairs: [[[UInt8]]] = written.map { [$0.series, $0.member] }
        let writtenMinutes: [Int64] = written.map(\.lastSeen)
        #expect(writtenPairs == expected.map(\.key))
        #expect(writtenMinutes == expected.map(\.value))
    }

    /// What postgres-nio reads from `bytes` as `[Int64]`, or `nil` where it refuses them.
    static func postgresNIOReading(_ bytes: [UInt8]) -> [Int64]? {
        var buffer = ByteBuffer(bytes: bytes)
        return try? [Int64](from: &buffer, type: .int8Array, format: .binary, context: .default)
    }

    static func reading(_ bytes: [UInt8]) -> [Int64]? {
        var buffer = ByteBuffer(bytes: bytes)
        return try? Int64ArrayColumn(from: &buffer, type: .int8Array, format: .binary, context: .default).values
    }

    @Test("int8[] columns read as postgres-nio reads them: empty, one, many, extremes; refused where it refuses")
    func int64ArraysReadAsPostgresNIO() {
        var generator = SystemRandomNumberGenerator()
        var arrays: [[Int64]] = [[], [0], [.min, -1, 0, 1, .max]]
        for _ in 0..<200 { arrays.append((0..<Int.random(in: 0...40, using: &generator)).map { _ in Int64.random(in: .min ... .max, using: &generator) }) }
        for values in arrays {
            let bytes = Self.bytes(values)
            #expect(Self.reading(bytes) == values)
            #expect(Self.postgresNIOReading(bytes) == values)
        }
        // Broken headers and elements: a NULL element, two dimensions, a lower bound of 0, an element of 4 bytes, a
        // count past the bytes, a truncated element, a truncated header.
        func array(_ header: [Int32], _ elements: [(Int32, [UInt8])]) -> [UInt8] {
            var buffer = ByteBuffer()
            for field in header { buffer.writeInteger(field) }
            for (length, bytes) in elements { buffer.writeInteger(length); buffer.writeBytes(bytes) }
            return Array(buffer.readableBytesView)
        }
        let eight: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 7]
        let broken: [[UInt8]] = [
            array([1, 1, 20, 1, 1], [(-1, [])]),
            array([2, 0, 20, 1, 1, 1, 1], [(8, eight)]),
            array([1, 0, 20, 1, 0], [(8, eight)]),
            array([1, 0, 20, 1, 1], [(4, [0, 0, 0, 7])]),
            array([1, 0, 20, 2, 1], [(8, eight)]),
            array([1, 0, 20, 1, 1], [(8, Array(eight.prefix(5)))]),
            [0, 0, 0, 1, 0, 0],
        ]
        for bytes in broken {
            #expect(Self.reading(bytes) == nil, "\(bytes)")
            #expect(Self.postgresNIOReading(bytes) == nil, "\(bytes)")
        }
        // An int4 element in an int8[]: postgres-nio widens it; PostgreSQL never sends one, and this refuses it.
        let int4Element = array([1, 0, 23, 1, 1], [(4, [0, 0, 0, 7])])
        #expect(Self.reading(int4Element) == nil && Self.postgresNIOReading(int4Element) == [7])
        // Trailing bytes after an empty or a full array: postgres-nio ignores them; this refuses them.
        #expect(Self.reading(Self.bytes([Int64]()) + [0]) == nil && Self.reading(Self.bytes([Int64(1)]) + [0, 0]) == nil)
        // An int4[] column is not an int8[] column.
        var int4 = ByteBuffer(bytes: Self.bytes([Int32(1), 2]))
        #expect(throws: (any Error).self) { try Int64ArrayColumn(from: &int4, type: .int4Array, format: .binary, context: .default) }
        // A text column is not an int8[] column.
        var text = ByteBuffer(string: "{1,2}")
        #expect(throws: (any Error).self) { try Int64ArrayColumn(from: &text, type: .int8Array, format: .text, context: .default) }
    }

    @Test("int8[] bytes truncated or with a byte changed read as postgres-nio reads them, or not at all")
    func int64ArraysDamaged() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<3_000 {
            var bytes = Self.bytes((0..<Int.random(in: 0...6, using: &generator)).map { _ in Int64.random(in: -3...3, using: &generator) })
            if Bool.random(using: &generator) {
                bytes.removeLast(Int.random(in: 0...bytes.count, using: &generator))
            } else {
                let index = Int.random(in: 0..<bytes.count, using: &generator)
                bytes[index] = [0, 1, 7, 8, 12, 20, 23, 0x7F, 0x80, 0xFF].randomElement(using: &generator)!
            }
            let reading = Self.reading(bytes)
            #expect(reading == nil || reading == Self.postgresNIOReading(bytes), "\(bytes)")
        }
    }

    @Test("int8[] columns from PostgreSQL: empty, NULL, one, many", arguments: StoreBackend.postgresOnly)
    func int64ArraysFromPostgres(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = try #require(test.store as? PostgresRiskStore)
            let sql = "SELECT '{}'::int8[], NULL::int8[], '{42}'::int8[], ARRAY[-9223372036854775808, 0, 9223372036854775807]::int8[]"
            let rows = try await store.client().query(PostgresQuery(unsafeSQL: sql)).collect()
            let row = try #require(rows.first)
            let (empty, none, one, many) = try row.decode((Int64ArrayColumn, Int64ArrayColumn?, Int64ArrayColumn, Int64ArrayColumn).self)
            #expect(empty.values.isEmpty && none == nil && one.values == [42] && many.values == [.min, 0, .max])
        }
    }
}
