import NIOCore
import PostgresNIO

/// An `int8[]` column (the facts' velocity and distinct totals) read in one pass over its bytes.
///
/// postgres-nio reads an array element by element through the generic element decoder: a slice, a type check and a
/// generic metadata look-up per element, several times what reading the bytes takes. This reads
/// PostgreSQL's binary array (`array_send`: dimensions, a "has nulls" flag, the element type, then for one dimension
/// its length and lower bound, and each element as its length and its bytes) straight from memory, and refuses what
/// postgres-nio refuses (NULL elements, more than one dimension, a lower bound other than 1, short elements), and
/// also elements of another type (postgres-nio widens `int2` and `int4` ones; PostgreSQL never sends them in an
/// `int8[]`) and trailing bytes. `ArrayParametersTests` holds it equal to postgres-nio's reading.
struct Int64ArrayColumn: PostgresDecodable {
    let values: [Int64]

    init<JSONDecoder: PostgresJSONDecoder>(
        from buffer: inout ByteBuffer, type: PostgresDataType, format: PostgresFormat, context: PostgresDecodingContext<JSONDecoder>
    ) throws {
        guard type == .int8Array, format == .binary else { throw PostgresDecodingError.Code.typeMismatch }
        guard let values = buffer.withUnsafeReadableBytes(Self.values(in:)) else { throw PostgresDecodingError.Code.failure }
        buffer.moveReaderIndex(forwardBy: buffer.readableBytes)
        self.values = values
    }

    /// The elements of the binary `int8[]` in `bytes`, or `nil` when the bytes are not one.
    static func values(in bytes: UnsafeRawBufferPointer) -> [Int64]? {
        func int32(at offset: Int) -> Int32 { Int32(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: Int32.self)) }
        guard bytes.count >= 12, int32(at: 4) == 0, UInt32(bitPattern: int32(at: 8)) == PostgresDataType.int8.rawValue else { return nil }
        switch int32(at: 0) {
        case 0:
            return bytes.count == 12 ? [] : nil
        case 1:
            guard bytes.count >= 20, int32(at: 16) == 1 else { return nil }
            let count = Int(int32(at: 12))
            guard count > 0, bytes.count == 20 + 12 * count else { return nil }
            var values: [Int64] = []
            values.reserveCapacity(count)
            var offset = 20
            for _ in 0..<count {
                guard int32(at: offset) == 8 else { return nil }
                values.append(Int64(bigEndian: bytes.loadUnaligned(fromByteOffset: offset + 4, as: Int64.self)))
                offset += 12
            }
            return values
        default:
            return nil
        }
    }
}
