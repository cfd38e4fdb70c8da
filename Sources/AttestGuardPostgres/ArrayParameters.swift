import Foundation
import NIOCore
import PostgresNIO

// Array parameters of the batch and write-behind statements, written straight into the statement's bindings.
// postgres-nio binds an array from a Swift array, which would cost each of a batch's three dozen array parameters an
// array of its own and each `bytea` element a `ByteBuffer` of its own (Benchmarks/allocations.sh counts them). These
// write the same wire format from the entries themselves. The format is PostgreSQL's binary array (`array_recv`):
// dimensions (0 for an empty array, else 1), a zero "has nulls" flag and the element type, then for a non-empty array
// its length and lower bound (1) and each element as its length and its bytes.
//
// Each array is measured first, then stored into the buffer's memory in one write of its whole size: NIO's integer
// and string writes each go through a bytes copy of their own, with capacity, uniqueness and exclusivity checks, and
// an element would take three of them (its length, its bytes, the length set again).

/// Writes an array of `count` elements of `elementType` whose bytes come to `elementBytes` (their lengths not
/// counted): the header, then the elements `storeElements` stores through the writer, which must end exactly at the
/// array's end. One write of the array's size.
private func writeArray(
    count: Int, elementType: PostgresDataType, elementBytes: Int, into buffer: inout ByteBuffer,
    storeElements: (inout FlatArrayWriter) -> Void
) {
    let headerLength = count == 0 ? 12 : 20
    let length = headerLength + 4 * count + elementBytes
    buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: length) { memory in
        let memory = UnsafeMutableRawBufferPointer(rebasing: memory[0..<length])
        memory.storeBytes(of: UInt32(count == 0 ? 0 : 1).bigEndian, toByteOffset: 0, as: UInt32.self)
        memory.storeBytes(of: Int32(0).bigEndian, toByteOffset: 4, as: Int32.self)
        memory.storeBytes(of: elementType.rawValue.bigEndian, toByteOffset: 8, as: UInt32.self)
        if count > 0 {
            memory.storeBytes(of: Int32(count).bigEndian, toByteOffset: 12, as: Int32.self)
            memory.storeBytes(of: Int32(1).bigEndian, toByteOffset: 16, as: Int32.self)
        }
        var writer = FlatArrayWriter(memory: memory, offset: headerLength)
        storeElements(&writer)
        precondition(writer.offset == length, "an array parameter's elements changed between measuring and writing them")
        return length
    }
}

/// Stores an array parameter's elements, each its length and its bytes, one after another into memory sized for them
/// all. Each element's declared size is checked against the room left before it is stored, and the last element's end
/// against the measured length: elements that measure differently when written stop the process rather than write
/// past the array. An element's `store` must store exactly the bytes it declares (``FlatArrayElement``).
struct FlatArrayWriter {
    fileprivate let memory: UnsafeMutableRawBufferPointer
    fileprivate(set) var offset: Int

    /// Stores an element of `byteCount` bytes: its length, then what `store` stores at the offset it is given.
    mutating func element(byteCount: Int, _ store: (UnsafeMutableRawBufferPointer, Int) -> Void) {
        precondition(byteCount >= 0 && offset + 4 + byteCount <= memory.count, "an array parameter's element does not fit")
        memory.storeBytes(of: Int32(byteCount).bigEndian, toByteOffset: offset, as: Int32.self)
        store(memory, offset + 4)
        offset += 4 + byteCount
    }

    /// Stores an element whose bytes are `bytes`.
    mutating func element(_ bytes: UnsafeRawBufferPointer) {
        element(byteCount: bytes.count) { memory, at in
            UnsafeMutableRawBufferPointer(rebasing: memory[at..<(at + bytes.count)]).copyMemory(from: bytes)
        }
    }
}

/// An element type of ``ArrayParameter``: its binary form is stored straight into memory, byte for byte what its
/// postgres-nio encoder writes (`ArrayParametersTests` holds them equal).
protocol FlatArrayElement: PostgresArrayEncodable & PostgresNonThrowingEncodable {
    /// How many bytes ``store(into:at:)`` stores.
    var flatByteCount: Int { get }
    /// Stores the binary form at `offset` of `memory`, which has ``flatByteCount`` bytes of room there: exactly
    /// ``flatByteCount`` bytes, none past them.
    func store(into memory: UnsafeMutableRawBufferPointer, at offset: Int)
}

extension Int64: FlatArrayElement {
    var flatByteCount: Int { 8 }
    func store(into memory: UnsafeMutableRawBufferPointer, at offset: Int) {
        memory.storeBytes(of: bigEndian, toByteOffset: offset, as: Int64.self)
    }
}

extension Int32: FlatArrayElement {
    var flatByteCount: Int { 4 }
    func store(into memory: UnsafeMutableRawBufferPointer, at offset: Int) {
        memory.storeBytes(of: bigEndian, toByteOffset: offset, as: Int32.self)
    }
}

extension Bool: FlatArrayElement {
    var flatByteCount: Int { 1 }
    func store(into memory: UnsafeMutableRawBufferPointer, at offset: Int) {
        memory[offset] = self ? 1 : 0
    }
}

extension Double: FlatArrayElement {
    var flatByteCount: Int { 8 }
    func store(into memory: UnsafeMutableRawBufferPointer, at offset: Int) {
        memory.storeBytes(of: bitPattern.bigEndian, toByteOffset: offset, as: UInt64.self)
    }
}

extension Date: FlatArrayElement {
    /// Where `timestamptz` counts its microseconds from: 2000-01-01 00:00 UTC.
    private static let postgresEpoch = Date(timeIntervalSince1970: 946_684_800)

    var flatByteCount: Int { 8 }
    /// Microseconds since ``postgresEpoch``, truncated toward zero as postgres-nio's encoder truncates them.
    func store(into memory: UnsafeMutableRawBufferPointer, at offset: Int) {
        let microseconds = Int64(timeIntervalSince(Self.postgresEpoch) * 1_000_000)
        memory.storeBytes(of: microseconds.bigEndian, toByteOffset: offset, as: Int64.self)
    }
}

extension String: FlatArrayElement {
    var flatByteCount: Int { utf8.count }
    func store(into memory: UnsafeMutableRawBufferPointer, at offset: Int) {
        let copied: Void? = utf8.withContiguousStorageIfAvailable { utf8 in
            UnsafeMutableRawBufferPointer(rebasing: memory[offset..<(offset + utf8.count)]).copyMemory(from: UnsafeRawBufferPointer(utf8))
        }
        if copied == nil {
            // A string without contiguous UTF-8 (bridged from another encoding): byte by byte.
            for (index, byte) in utf8.enumerated() { memory[offset + index] = byte }
        }
    }
}

/// An array parameter whose elements are those of `source`, or `transform` of each: encoded as the Swift array
/// `[Element]` would be, without building that array, in one write.
///
/// `transform` reads an element of `source` where `source` stores it (``Swift/Collection/forEachStoredElement(_:)``),
/// and must not keep the pointer: given the element by value, a closure would get a copy of the whole element (a
/// batch's entry), which retains every string and array it holds to read one field, once per column and pass.
struct ArrayParameter<Source: Collection, Element: FlatArrayElement>: PostgresNonThrowingEncodable {
    static var psqlType: PostgresDataType { Element.psqlArrayType }
    static var psqlFormat: PostgresFormat { .binary }

    let source: Source
    /// Called twice per element, to measure and to store: a plain reading of the element, giving equal values.
    let transform: (UnsafePointer<Source.Element>) -> Element

    init(_ source: Source, _ transform: @escaping (UnsafePointer<Source.Element>) -> Element) {
        self.source = source
        self.transform = transform
    }

    init(_ elements: Source) where Source.Element == Element {
        self.init(elements) { $0.pointee }
    }

    func encode<JSONEncoder: PostgresJSONEncoder>(into buffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) {
        var elementBytes = 0
        source.forEachStoredElement { elementBytes += transform($0).flatByteCount }
        writeArray(count: source.count, elementType: Element.psqlType, elementBytes: elementBytes, into: &buffer) { writer in
            source.forEachStoredElement { item in
                let element = transform(item)
                writer.element(byteCount: element.flatByteCount) { memory, offset in element.store(into: memory, at: offset) }
            }
        }
    }
}

extension Collection {
    /// Calls `body` with the address of each element, in order, valid only during that call: where the collection
    /// stores it for one with contiguous storage (an array of a batch's entries), so that reading a field through it
    /// copies that field alone; of a copy of each element otherwise.
    func forEachStoredElement(_ body: (UnsafePointer<Element>) -> Void) {
        let stored: Void? = withContiguousStorageIfAvailable { elements in
            guard let base = elements.baseAddress else { return }
            for offset in 0..<elements.count { body(base + offset) }
        }
        if stored == nil {
            for item in self { withUnsafePointer(to: item, body) }
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

    /// The elements of `source`, each `elementBytes` of the element where `source` stores it (as ``ArrayParameter``
    /// reads them; the pointer is valid only during the call).
    init<Source: Collection, Bytes: Collection<UInt8>>(_ source: Source, _ elementBytes: (UnsafePointer<Source.Element>) -> Bytes) {
        var totalBytes = 0
        source.forEachStoredElement { totalBytes += elementBytes($0).count }
        self.init(capacity: source.count, totalBytes: totalBytes)
        source.forEachStoredElement { append(elementBytes($0)) }
    }

    mutating func append(_ element: some Collection<UInt8>) {
        bytes.append(contentsOf: element)
        ends.append(bytes.count)
    }

    func encode<JSONEncoder: PostgresJSONEncoder>(into buffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) {
        writeArray(count: ends.count, elementType: .bytea, elementBytes: bytes.count, into: &buffer) { writer in
            bytes.withUnsafeBytes { all in
                var start = 0
                for end in ends {
                    writer.element(UnsafeRawBufferPointer(rebasing: all[start..<end]))
                    start = end
                }
            }
        }
    }
}
