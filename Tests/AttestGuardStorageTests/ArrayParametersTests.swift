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

    @Test("each writes the bytes postgres-nio writes for a Swift array: empty, one, many, long and empty elements")
    func sameBytesAsSwiftArrays() {
        // Written after `offset` bytes already in the buffer (a statement's earlier parameters), at any alignment.
        func bytes(_ value: some PostgresNonThrowingEncodable, offset: Int = 0) -> [UInt8] {
            var buffer = ByteBuffer()
            buffer.writeRepeatingByte(0xA5, count: offset)
            value.encode(into: &buffer, context: .default)
            buffer.moveReaderIndex(forwardBy: offset)
            return Array(buffer.readableBytesView)
        }
        for elements in Self.elementSets {
            for offset in 1...3 {
                #expect(bytes(MappedArrayParameter(elements) { $0 }, offset: offset) == bytes(elements))
                #expect(bytes(ByteaArrayParameter(elements) { Array($0.utf8) }, offset: offset) == bytes(elements.map { ByteBuffer(string: $0) }))
            }
            #expect(bytes(MappedArrayParameter(elements) { $0 }) == bytes(elements))
            #expect(bytes(MappedArrayParameter(elements) { Int64($0.utf8.count) }) == bytes(elements.map { Int64($0.utf8.count) }))
            #expect(bytes(MappedArrayParameter(elements) { $0.count % 2 == 0 }) == bytes(elements.map { $0.count % 2 == 0 }))
            #expect(bytes(ByteaArrayParameter(elements) { Array($0.utf8) }) == bytes(elements.map { ByteBuffer(string: $0) }))
        }
    }

    @Test("each reaches PostgreSQL as the array postgres-nio binds from a Swift array: empty, one, many, long and empty elements", arguments: StoreBackend.postgresOnly)
    func sameAsSwiftArrays(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = try #require(test.store as? PostgresRiskStore)
            for elements in Self.elementSets {
                var bindings = PostgresBindings()
                bindings.append(ByteaArrayParameter(elements) { Array($0.utf8) })
                bindings.append(elements.map { ByteBuffer(string: $0) })
                var appended = ByteaArrayParameter()
                for element in elements { appended.append(element.utf8) }
                bindings.append(appended)
                bindings.append(MappedArrayParameter(elements) { $0 })
                bindings.append(elements)
                bindings.append(MappedArrayParameter(elements) { Int64($0.utf8.count) })
                bindings.append(elements.map { Int64($0.utf8.count) })
                bindings.append(MappedArrayParameter(elements) { $0.count % 2 == 0 })
                bindings.append(elements.map { $0.count % 2 == 0 })
                let sql = """
                    SELECT $1::bytea[] IS NOT DISTINCT FROM $2::bytea[], $3::bytea[] IS NOT DISTINCT FROM $2::bytea[],
                           $4::text[] IS NOT DISTINCT FROM $5::text[], $6::int8[] IS NOT DISTINCT FROM $7::int8[],
                           $8::bool[] IS NOT DISTINCT FROM $9::bool[], coalesce(cardinality($1::bytea[]), 0)::int8,
                           coalesce(cardinality($4::text[]), 0)::int8
                    """
                let rows = try await store.client().query(PostgresQuery(unsafeSQL: sql, binds: bindings)).collect()
                let row = try #require(rows.first)
                let (bytea, appendedBytea, text, int8, bool, byteaCount, textCount) = try row.decode((Bool, Bool, Bool, Bool, Bool, Int64, Int64).self)
                #expect(bytea && appendedBytea && text && int8 && bool, "\(elements.count) elements")
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

    @Test("hashing a string's UTF-8 in place equals hashing a copy: short, long, non-ASCII, empty")
    func hashesUTF8InPlace() {
        for text in ["", "a", "sübject ✓", String(repeating: "long text ", count: 100), "exactly15 bytes"] {
            var inPlace = SHA256()
            inPlace.update(utf8: text)
            #expect(inPlace.finalize() == SHA256.hash(data: Array(text.utf8)), "\(text.prefix(20))")
        }
    }
}
