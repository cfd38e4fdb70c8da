/// A body read straight from a ``PlainJSONDocument``'s tree by its own code rather than through `Decodable`: the
/// bodies every verdict reads, whose decoding through ``PlainJSONDecoder``'s `Decoder` (containers, coding keys,
/// generic look-ups per member) costs more than parsing their text.
///
/// A reader gives exactly what the type's `Decodable` conformance gives from the same tree, and throws
/// ``PlainJSONDeclined`` wherever that decoding would throw or decline, or leave a member unread that `unread` does not
/// allow: ``PlainJSONDecoder`` then leaves the text to the slow path, which gives the canonical value or error. So a
/// reader can only change the speed; `PlainJSONDecoderTests` holds the paths equal on random and mutated bodies.
package protocol PlainJSONReadable: Decodable {
    init(plain value: PlainJSONValue, unread: PlainJSONUnreadMembers) throws(PlainJSONDeclined)
}

/// What a direct reading (``PlainJSONReadable``) throws to leave the text to the slow path.
package struct PlainJSONDeclined: Error {
    package init() {}
}

/// Whether a direct reading (``PlainJSONReadable``) declines an object with members it did not read, as
/// ``PlainJSONDecoder/UnreadMembers`` says for the whole document.
package struct PlainJSONUnreadMembers {
    /// Whether an unread member declines.
    let declines: Bool
    /// The members of this object that may stay unread (the top object's only).
    let ignored: Set<String>

    package init(_ rule: PlainJSONDecoder.UnreadMembers) {
        switch rule {
        case .ignore: (declines, ignored) = (false, [])
        case .decline(let ignoringTopLevel): (declines, ignored) = (true, ignoringTopLevel)
        }
    }

    private init(declines: Bool, ignored: Set<String>) {
        (self.declines, self.ignored) = (declines, ignored)
    }

    /// The rule for an object nested in this one: no member is ignored there.
    package var nested: PlainJSONUnreadMembers { PlainJSONUnreadMembers(declines: declines, ignored: []) }
}

/// The members of one object, read by name as the `Decodable` conformances read them (a required member must be
/// there, an optional one is absent or of the type asked; the tree holds no `null`), each read marked so that
/// ``finish(_:)`` can tell whether the object had a member nobody read.
package struct PlainJSONMembers {
    private let object: PlainJSONObject
    /// Bit `i` is set once member `i` is read: an object of more than 64 members declines (no body has one).
    private var read: UInt64 = 0

    package init(_ value: PlainJSONValue) throws(PlainJSONDeclined) {
        guard case .object(let object) = value, object.members.count <= 64 else { throw PlainJSONDeclined() }
        self.object = object
    }

    /// The value of the member named `key`, marked read; `nil` when there is none.
    package mutating func valueIfPresent(_ key: String) -> PlainJSONValue? {
        guard let index = object.members.firstIndex(where: { $0.key == key }) else { return nil }
        read |= 1 << UInt64(index)
        return object.members[index].value
    }

    /// The value of the member named `key`, which must be there.
    package mutating func value(_ key: String) throws(PlainJSONDeclined) -> PlainJSONValue {
        guard let value = valueIfPresent(key) else { throw PlainJSONDeclined() }
        return value
    }

    /// The string of the member named `key`, which must be there.
    package mutating func string(_ key: String) throws(PlainJSONDeclined) -> String {
        try value(key).plainString()
    }

    /// The string of the member named `key`, or `nil` when there is none.
    package mutating func stringIfPresent(_ key: String) throws(PlainJSONDeclined) -> String? {
        try valueIfPresent(key)?.plainString()
    }

    /// Ends the reading: declines when a member was left unread that `unread` does not allow.
    package func finish(_ unread: PlainJSONUnreadMembers) throws(PlainJSONDeclined) {
        guard unread.declines else { return }
        for (index, member) in object.members.enumerated() where read & (1 << UInt64(index)) == 0 && !unread.ignored.contains(member.key) {
            throw PlainJSONDeclined()
        }
    }
}

extension PlainJSONValue {
    /// The string, as `String`'s decoding reads it: only a JSON string.
    package func plainString() throws(PlainJSONDeclined) -> String {
        guard case .string(let text) = self else { throw PlainJSONDeclined() }
        return text
    }

    /// The number as a `Double` (``finiteDouble(_:)``).
    package func plainDouble() throws(PlainJSONDeclined) -> Double {
        guard case .number(let text, _) = self, let number = Self.finiteDouble(text) else { throw PlainJSONDeclined() }
        return number
    }

    /// The number as an `Int` (``integer(_:isInteger:as:)``).
    package func plainInt() throws(PlainJSONDeclined) -> Int {
        guard case .number(let text, let isInteger) = self, let number = Self.integer(text, isInteger: isInteger, as: Int.self) else {
            throw PlainJSONDeclined()
        }
        return number
    }

    /// A number's text as a `Double`, for both fast readings (the `Decoder` and the direct ones): parsed, `nil` when
    /// not finite, which the slow path judges.
    static func finiteDouble(_ text: String) -> Double? {
        guard let number = Double(text), number.isFinite else { return nil }
        return number
    }

    /// A number's text as an integer of `type`, for both fast readings: `nil` for a fraction, `-0` or a value out of
    /// range, which the slow path judges.
    static func integer<Integer: FixedWidthInteger>(_ text: String, isInteger: Bool, as type: Integer.Type) -> Integer? {
        guard isInteger, text != "-0" else { return nil }
        return Integer(text, radix: 10)
    }
}
