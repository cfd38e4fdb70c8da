package import Foundation

/// Decodes a `Decodable` value from a ``PlainJSONDocument``, giving exactly what Foundation's `JSONDecoder` (default
/// strategies) gives for the same text, or `nil`: the caller then reads the text with `JSONDecoder` for the canonical
/// value or error. It returns `nil` whenever the value's decoding throws (the slow path says why), whenever it asks
/// for something `JSONDecoder` treats specially (`Data`, `Date`, `URL`, `Decimal`, `Float`, a number that does not fit
/// the type asked for, a `superDecoder`), and, when asked to, when the text has a member the value never read. So the
/// two paths can only differ in speed; the property tests in `PlainJSONDecoderTests` hold them equal.
package enum PlainJSONDecoder {
    /// What to do with members the value's type never reads.
    package enum UnreadMembers {
        /// Ignore them, as `JSONDecoder` does.
        case ignore
        /// Decline when an object the value read has a member it did not read, but for these members of the top
        /// object.
        case decline(ignoringTopLevel: Set<String>)
    }

    /// `Value` from the JSON text in `bytes`, or `nil` for the slow path to read.
    package static func decode<Value: Decodable>(_ type: Value.Type, from bytes: UnsafeRawBufferPointer, unreadMembers: UnreadMembers) -> Value? {
        guard let document = PlainJSONDocument(parsing: bytes) else { return nil }
        if let readable = Value.self as? any PlainJSONReadable.Type {
            return (try? readable.init(plain: document.root, unread: PlainJSONUnreadMembers(unreadMembers))) as? Value
        }
        return decodeThroughDecodable(type, from: document, unreadMembers: unreadMembers)
    }

    /// `Value` from `document` through its `Decodable` conformance, or `nil` for the slow path to read: what
    /// ``decode(_:from:unreadMembers:)`` gives for a type without a direct reading (``PlainJSONReadable``), and what
    /// a direct reading must give.
    package static func decodeThroughDecodable<Value: Decodable>(_ type: Value.Type, from document: PlainJSONDocument, unreadMembers: UnreadMembers) -> Value? {
        let state = DecodingState(document: document)
        let value: Value
        do {
            value = try Value(from: TreeDecoder(value: document.root, state: state, codingPath: []))
        } catch {
            return nil
        }
        guard !state.declined else { return nil }
        if case .decline(let ignored) = unreadMembers, state.hasUnreadMember(ignoringTopLevel: ignored) { return nil }
        return value
    }

    /// `Value` from the JSON text in `data`, or `nil` for the slow path to read.
    package static func decode<Value: Decodable>(_ type: Value.Type, from data: Data, unreadMembers: UnreadMembers) -> Value? {
        data.withUnsafeBytes { decode(type, from: $0, unreadMembers: unreadMembers) }
    }
}

/// Shared by every container of one decoding: whether it declined, and which objects and members it read.
private final class DecodingState {
    let root: PlainJSONValue
    /// Set when the decoding met something only the slow path reads exactly. A type may swallow the error thrown
    /// with it (`try?`), so the flag, not the error, decides.
    var declined = false
    var openedObjects: [Bool]
    var readMembers: [Bool]

    init(document: PlainJSONDocument) {
        root = document.root
        openedObjects = Array(repeating: false, count: document.objectCount)
        readMembers = Array(repeating: false, count: document.memberCount)
    }

    /// Marks the decoding declined and returns the error to throw.
    func decline(_ codingPath: [any CodingKey]) -> DecodingError {
        declined = true
        return DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "left to the slow path"))
    }

    func hasUnreadMember(ignoringTopLevel ignored: Set<String>) -> Bool {
        var stack = [root]
        while let value = stack.popLast() {
            switch value {
            case .object(let object):
                if openedObjects[object.ordinal] {
                    let isTop = object.ordinal == 0
                    for member in object.members where !readMembers[member.ordinal] && !(isTop && ignored.contains(member.key)) {
                        return true
                    }
                }
                stack.append(contentsOf: object.members.map(\.value))
            case .array(let elements):
                stack.append(contentsOf: elements)
            case .string, .number, .bool:
                break
            }
        }
        return false
    }

    /// `T` from `value`: the scalar types directly, the types `JSONDecoder` treats specially declined, the rest
    /// through their own `init(from:)`.
    func decode<T: Decodable>(_ type: T.Type, from value: PlainJSONValue, path: ValuePath) throws -> T {
        if let scalar = try scalar(type, from: value, path: path) { return scalar }
        if type == Data.self || type == Date.self || type == URL.self || type == Decimal.self {
            throw decline(path.array)
        }
        return try T(from: TreeDecoder(value: value, state: self, codingPath: path.array))
    }

    /// `T` when it is a type JSON reads as a scalar; `nil` for any other type.
    func scalar<T>(_ type: T.Type, from value: PlainJSONValue, path: ValuePath) throws -> T? {
        switch type {
        case is String.Type:
            guard case .string(let text) = value else { throw mismatch(type, value, path.array) }
            return (text as! T)
        case is Bool.Type:
            guard case .bool(let flag) = value else { throw mismatch(type, value, path.array) }
            return (flag as! T)
        case is Double.Type:
            guard case .number(let text, _) = value else { throw mismatch(type, value, path.array) }
            guard let number = PlainJSONValue.finiteDouble(text) else { throw decline(path.array) }
            return (number as! T)
        case is Float.Type:
            throw decline(path.array)
        case let integer as any FixedWidthInteger.Type:
            guard case .number(let text, let isInteger) = value else { throw mismatch(type, value, path.array) }
            guard let number = PlainJSONValue.integer(text, isInteger: isInteger, as: integer) else { throw decline(path.array) }
            return (number as! T)
        default:
            return nil
        }
    }

    func mismatch(_ type: Any.Type, _ value: PlainJSONValue, _ codingPath: [any CodingKey]) -> DecodingError {
        DecodingError.typeMismatch(type, .init(codingPath: codingPath, debugDescription: "found \(value.kind)"))
    }
}

extension PlainJSONValue {
    /// What the value is, for an error message.
    fileprivate var kind: String {
        switch self {
        case .string: "a string"
        case .number: "a number"
        case .bool: "a boolean"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

/// A value's coding path as its container's path and the key below it. Most values read are scalars, whose path
/// only an error needs: the array is built then, or for a nested decoder, not for every member read (two
/// allocations each).
private struct ValuePath {
    let parent: [any CodingKey]
    let key: (any CodingKey)?

    var array: [any CodingKey] { key.map { parent + [$0] } ?? parent }
}

/// The `Decoder` of one value of the tree.
private struct TreeDecoder: Decoder {
    let value: PlainJSONValue
    let state: DecodingState
    let codingPath: [any CodingKey]

    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let object) = value else { throw state.mismatch([String: Any].self, value, codingPath) }
        state.openedObjects[object.ordinal] = true
        return KeyedDecodingContainer(TreeKeyedContainer<Key>(object: object, state: state, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = value else { throw state.mismatch([Any].self, value, codingPath) }
        return TreeUnkeyedContainer(elements: elements, state: state, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        TreeSingleValueContainer(value: value, state: state, codingPath: codingPath)
    }
}

private struct TreeKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let object: PlainJSONObject
    let state: DecodingState
    let codingPath: [any CodingKey]

    var allKeys: [Key] { object.members.compactMap { Key(stringValue: $0.key) } }

    /// The member named `key`, marked read.
    private func member(_ key: Key) -> PlainJSONObject.Member? {
        guard let member = object.member(key.stringValue) else { return nil }
        state.readMembers[member.ordinal] = true
        return member
    }

    private func required(_ key: Key) throws -> PlainJSONObject.Member {
        guard let member = member(key) else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "no member \(key.stringValue)"))
        }
        return member
    }

    func contains(_ key: Key) -> Bool { member(key) != nil }

    func decodeNil(forKey key: Key) throws -> Bool {
        // The tree has no null; an absent key is an error `JSONDecoder` words its own way.
        guard member(key) != nil else { throw state.decline(codingPath + [key]) }
        return false
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try state.decode(type, from: try required(key).value, path: ValuePath(parent: codingPath, key: key))
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let member = member(key) else { return nil }
        return try state.decode(type, from: member.value, path: ValuePath(parent: codingPath, key: key))
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try TreeDecoder(value: try required(key).value, state: state, codingPath: codingPath + [key]).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try TreeDecoder(value: try required(key).value, state: state, codingPath: codingPath + [key]).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder { throw state.decline(codingPath) }

    func superDecoder(forKey key: Key) throws -> any Decoder { throw state.decline(codingPath + [key]) }
}

private struct TreeUnkeyedContainer: UnkeyedDecodingContainer {
    let elements: [PlainJSONValue]
    let state: DecodingState
    let codingPath: [any CodingKey]
    var currentIndex = 0

    init(elements: [PlainJSONValue], state: DecodingState, codingPath: [any CodingKey]) {
        self.elements = elements
        self.state = state
        self.codingPath = codingPath
    }

    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    /// The next element, or the decline that `JSONDecoder`'s own end-of-array error stands for.
    private mutating func next() throws -> (PlainJSONValue, ValuePath) {
        guard !isAtEnd else { throw state.decline(codingPath) }
        defer { currentIndex += 1 }
        return (elements[currentIndex], ValuePath(parent: codingPath, key: IndexKey(intValue: currentIndex)))
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd else { throw state.decline(codingPath) }
        return false
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let (element, path) = try next()
        return try state.decode(type, from: element, path: path)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let (element, path) = try next()
        return try TreeDecoder(value: element, state: state, codingPath: path.array).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let (element, path) = try next()
        return try TreeDecoder(value: element, state: state, codingPath: path.array).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder { throw state.decline(codingPath) }
}

private struct TreeSingleValueContainer: SingleValueDecodingContainer {
    let value: PlainJSONValue
    let state: DecodingState
    let codingPath: [any CodingKey]

    func decodeNil() -> Bool { false }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try state.decode(type, from: value, path: ValuePath(parent: codingPath, key: nil))
    }
}

/// An array index in a coding path.
private struct IndexKey: CodingKey {
    let intValue: Int?
    var stringValue: String { "\(intValue ?? 0)" }

    init(intValue: Int) { self.intValue = intValue }
    init?(stringValue: String) { nil }
}
