import NIOCore
import PostgresNIO

// Array parameters of the batch and write-behind statements, written straight into the statement's bindings.
// postgres-nio binds an array from a Swift array, which would cost each of a batch's three dozen array parameters an
// array of its own and each `bytea` element a `ByteBuffer` of its own (Benchmarks/allocations.sh counts them). These
// write the same wire format from the entries themselves. The format is PostgreSQL's binary array (`array_recv`):
// dimensions (0 for an empty array, else 1), a zero "has nulls" flag and the element type, then for a non-empty array
// its length and lower bound (1) and each element as its length and its bytes.

/// Writes the binary array header for `count` elements of `elementType` (big-endian, as every integer on the wire).
/// Stored into the buffer's memory at once: a statement binds dozens of arrays, and NIO's integer writes, even
/// `writeMultipleIntegers`, set each integer through a bytes copy of its own, with its own capacity, uniqueness and
/// exclusivity checks.
private func writeArrayHeader(count: Int, elementType: PostgresDataType, into buffer: inout ByteBuffer) {
    let length = count == 0 ? 12 : 20
    buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: length) { bytes in
        bytes.storeBytes(of: UInt32(count == 0 ? 0 : 1).bigEndian, toByteOffset: 0, as: UInt32.self)
        bytes.storeBytes(of: Int32(0).bigEndian, toByteOffset: 4, as: Int32.self)
        bytes.storeBytes(of: elementType.rawValue.bigEndian, toByteOffset: 8, as: UInt32.self)
        if count > 0 {
            bytes.storeBytes(of: Int32(count).bigEndian, toByteOffset: 12, as: Int32.self)
            bytes.storeBytes(of: Int32(1).bigEndian, toByteOffset: 16, as: Int32.self)
        }
        return length
    }
}

/// An array parameter whose elements are `transform` of each element of `source`, encoded as the array
/// `[Element]` would be, without building that array.
struct MappedArrayParameter<Source: Collection, Element: PostgresArrayEncodable & PostgresNonThrowingEncodable>: PostgresNonThrowingEncodable {
    static var psqlType: PostgresDataType { Element.psqlArrayType }
    static var psqlFormat: PostgresFormat { .binary }

    let source: Source
    let transform: (Source.Element) -> Element

    init(_ source: Source, _ transform: @escaping (Source.Element) -> Element) {
        self.source = source
        self.transform = transform
    }

    func encode<JSONEncoder: PostgresJSONEncoder>(into buffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) {
        writeArrayHeader(count: source.count, elementType: Element.psqlType, into: &buffer)
        for item in source {
            let lengthIndex = buffer.writerIndex
            buffer.writeInteger(0, as: Int32.self)
            let start = buffer.writerIndex
            transform(item).encode(into: &buffer, context: context)
            buffer.setInteger(Int32(buffer.writerIndex - start), at: lengthIndex)
        }
    }
}

/// A `bytea[]` parameter built element by element into one flat byte array, instead of a `ByteBuffer` per element.
struct ByteaArrayParameter: PostgresNonThrowingEncodable {
    static var psqlType: PostgresDataType { .byteaArray }
    static var psqlFormat: PostgresFormat { .binary }

    /// Every element's bytes, one after another.
    private var bytes: [UInt8] = []
    /// Where each element ends in ``bytes``.
    private var ends: [Int] = []

    var count: Int { ends.count }

    init() {}

    /// An empty array with room for `capacity` elements of `totalBytes` bytes in all.
    init(capacity: Int, totalBytes: Int) {
        bytes.reserveCapacity(totalBytes)
        ends.reserveCapacity(capacity)
    }

    /// The elements of `source`, each `elementBytes(element)`.
    init<Source: Collection, Bytes: Collection<UInt8>>(_ source: Source, _ elementBytes: (Source.Element) -> Bytes) {
        var totalBytes = 0
        for item in source { totalBytes += elementBytes(item).count }
        self.init(capacity: source.count, totalBytes: totalBytes)
        for item in source { append(elementBytes(item)) }
    }

    mutating func append(_ element: some Collection<UInt8>) {
        bytes.append(contentsOf: element)
        ends.append(bytes.count)
    }

    func encode<JSONEncoder: PostgresJSONEncoder>(into buffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) {
        writeArrayHeader(count: ends.count, elementType: .bytea, into: &buffer)
        var start = 0
        bytes.withUnsafeBytes { all in
            for end in ends {
                buffer.writeInteger(Int32(end - start))
                buffer.writeBytes(UnsafeRawBufferPointer(rebasing: all[start..<end]))
                start = end
            }
        }
    }
}
