import AttestVocabulary
import Foundation

/// Decodes a body with `JSONDecoder` and refuses members the body type does not read: a misspelled `"userid"` would
/// otherwise be dropped without a word (a challenge bound to no user). It wraps the decoder the type is given, so
/// that every keyed container records the keys the JSON object has and the keys the type asked for; a key present
/// and never asked for is 400 `invalid_field` naming it. Written by hand because neither Foundation's decoder nor a
/// package reports unread members; every route's tests and the hostile-input suite exercise it.
enum StrictJSONDecoding {
    /// `Value` from `data`, refusing unread members.
    static func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
        let recorder = MemberRecorder()
        let decoder = JSONDecoder()
        decoder.userInfo[MemberRecorder.userInfoKey] = recorder
        let value = try decoder.decode(Trampoline<Value>.self, from: data).value
        if let unread = recorder.firstUnread(ignoring: ignoredMembers(of: Value.self)) {
            throw APIError.badRequest(.invalidField, "\(unread.prefix(128)) is not a field of this body")
        }
        return value
    }

    /// The top-level members `Value` may carry unread (``IgnoredMembers``).
    static func ignoredMembers<Value>(of type: Value.Type) -> Set<String> {
        (type as? any IgnoredMembers.Type)?.ignoredMembers ?? []
    }

    /// Hands the type a recording decoder in place of `JSONDecoder`'s own.
    private struct Trampoline<Value: Decodable>: Decodable {
        let value: Value

        init(from decoder: any Decoder) throws {
            let recorder = decoder.userInfo[MemberRecorder.userInfoKey] as! MemberRecorder
            value = try Value(from: RecordingDecoder(base: decoder, recorder: recorder))
        }
    }
}

/// A body type whose top object may carry members it does not read, by the contract: the app-facing bodies, whose
/// identity fields (`appId`, `userId`, `ip`) come from the gateway and are not read from the body.
protocol IgnoredMembers {
    static var ignoredMembers: Set<String> { get }
}

/// The members each JSON object of one body had and the members its type read. Used on one decoding task only.
final class MemberRecorder: @unchecked Sendable {
    static let userInfoKey = CodingUserInfoKey(rawValue: "attestguard.memberRecorder")!

    /// Per object path, in the order first seen: its members and those read. A type may read one object through
    /// several containers (a label body reads `labels` and the single label's fields from the same object): a member
    /// counts as read when any of them read it.
    private var paths: [String] = []
    private var objects: [String: (present: [String], read: Set<String>)] = [:]

    /// Starts a container on the object at `path` with its `present` members; returns the key for ``read(_:in:)``.
    func object(at path: String, present: [String]) -> String {
        if objects[path] == nil {
            paths.append(path)
            objects[path] = (present, [])
        }
        return path
    }

    func read(_ key: String, in object: String) {
        objects[object]?.read.insert(key)
    }

    /// `path.member` of the first member present and never read, by name (the decoder lists an object's members in no
    /// fixed order, and one text must always get one answer); `ignoring` members of the top object are none.
    func firstUnread(ignoring: Set<String>) -> String? {
        for path in paths {
            guard let object = objects[path] else { continue }
            if let unread = object.present.sorted().first(where: { !object.read.contains($0) && !(path.isEmpty && ignoring.contains($0)) }) {
                return path.isEmpty ? unread : path + "." + unread
            }
        }
        return nil
    }

    static func path(_ codingPath: [any CodingKey]) -> String {
        codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
    }
}

/// A decoder that forwards to `base` and records, per keyed container, the members present and read.
private struct RecordingDecoder: Decoder {
    let base: any Decoder
    let recorder: MemberRecorder

    var codingPath: [any CodingKey] { base.codingPath }
    var userInfo: [CodingUserInfoKey: Any] { base.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        let container = try base.container(keyedBy: type)
        // The object's own keys: a container keyed by the type's keys lists only the keys it can name.
        let present = try base.container(keyedBy: AnyMemberKey.self).allKeys.map(\.stringValue)
        let object = recorder.object(at: MemberRecorder.path(codingPath), present: present)
        return KeyedDecodingContainer(RecordingKeyedContainer(base: container, recorder: recorder, object: object))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        RecordingUnkeyedContainer(base: try base.unkeyedContainer(), recorder: recorder)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        try base.singleValueContainer()
    }

    /// Whether `T` is decoded by the base container itself (a leaf, or a type the decoder has a strategy for).
    static func isLeaf<T>(_ type: T.Type) -> Bool {
        type == String.self || type == Bool.self || type == Int.self || type == Int64.self || type == Int32.self || type == UInt8.self
            || type == Double.self || type == Float.self || type == Date.self || type == Data.self || type == URL.self || type == Decimal.self
    }
}

private struct RecordingKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let base: KeyedDecodingContainer<Key>
    let recorder: MemberRecorder
    let object: String

    var codingPath: [any CodingKey] { base.codingPath }
    /// By name: the decoder lists them in no fixed order, and a type that stops at the first bad one (a dictionary's
    /// values) must name the same one every time.
    var allKeys: [Key] { base.allKeys.sorted { $0.stringValue < $1.stringValue } }

    func contains(_ key: Key) -> Bool {
        recorder.read(key.stringValue, in: object)
        return base.contains(key)
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        recorder.read(key.stringValue, in: object)
        return try base.decodeNil(forKey: key)
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        recorder.read(key.stringValue, in: object)
        if RecordingDecoder.isLeaf(type) { return try base.decode(type, forKey: key) }
        return try T(from: RecordingDecoder(base: try base.superDecoder(forKey: key), recorder: recorder))
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        recorder.read(key.stringValue, in: object)
        guard base.contains(key), try !base.decodeNil(forKey: key) else { return try base.decodeIfPresent(type, forKey: key) }
        return try decode(type, forKey: key)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        recorder.read(key.stringValue, in: object)
        return try RecordingDecoder(base: try base.superDecoder(forKey: key), recorder: recorder).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        recorder.read(key.stringValue, in: object)
        return RecordingUnkeyedContainer(base: try base.nestedUnkeyedContainer(forKey: key), recorder: recorder)
    }

    func superDecoder() throws -> any Decoder {
        RecordingDecoder(base: try base.superDecoder(), recorder: recorder)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        recorder.read(key.stringValue, in: object)
        return RecordingDecoder(base: try base.superDecoder(forKey: key), recorder: recorder)
    }
}

private struct RecordingUnkeyedContainer: UnkeyedDecodingContainer {
    var base: any UnkeyedDecodingContainer
    let recorder: MemberRecorder

    var codingPath: [any CodingKey] { base.codingPath }
    var count: Int? { base.count }
    var isAtEnd: Bool { base.isAtEnd }
    var currentIndex: Int { base.currentIndex }

    mutating func decodeNil() throws -> Bool { try base.decodeNil() }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if RecordingDecoder.isLeaf(type) { return try base.decode(type) }
        return try T(from: RecordingDecoder(base: try base.superDecoder(), recorder: recorder))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try RecordingDecoder(base: try base.superDecoder(), recorder: recorder).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        RecordingUnkeyedContainer(base: try base.nestedUnkeyedContainer(), recorder: recorder)
    }

    mutating func superDecoder() throws -> any Decoder {
        RecordingDecoder(base: try base.superDecoder(), recorder: recorder)
    }
}

/// Any member name, for listing an object's keys.
private struct AnyMemberKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }

    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
