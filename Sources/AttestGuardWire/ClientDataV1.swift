import Foundation

/// The clientData an app signs in assertion format v1 (contract, "Assertion clientData, format v1"): the challenge
/// as issued and the request it authorises, as exact UTF-8 JSON bytes. The app builds them with ``bytes`` and signs
/// them; the server reads them back with ``init(parsing:)`` and never re-serialises them, so the two sides agree on
/// what was signed whatever either's JSON library would have written.
public struct ClientDataV1: Sendable, Hashable {
    /// The challenge, base64url without padding, as the server issued it.
    public var challenge: String
    /// The request's method as sent (`POST`).
    public var method: String
    /// The request-target as sent: path and `?query`, byte for byte (``RequestTarget``).
    public var path: String
    /// base64url SHA-256 (no padding) of the exact body; of no bytes for a request without one.
    public var bodySha256: String

    public init(challenge: String, method: String, path: String, bodySha256: String) {
        self.challenge = challenge
        self.method = method
        self.path = path
        self.bodySha256 = bodySha256
    }

    /// Why bytes are not clientData v1.
    public struct ParseError: Error, Sendable, Hashable, CustomStringConvertible {
        public let description: String
    }

    /// The bytes to sign: `{"v":1,"challenge":…,"method":…,"path":…,"bodySha256":…}` in that order, no spaces,
    /// strings escaped as JSON requires and nothing more (`"`, `\`, control characters; `/` and non-ASCII as they are).
    public var bytes: [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(96 + challenge.utf8.count + method.utf8.count + path.utf8.count + bodySha256.utf8.count)
        output += Array(#"{"v":1,"challenge":"#.utf8)
        Self.appendString(challenge, to: &output)
        output += Array(#","method":"#.utf8)
        Self.appendString(method, to: &output)
        output += Array(#","path":"#.utf8)
        Self.appendString(path, to: &output)
        output += Array(#","bodySha256":"#.utf8)
        Self.appendString(bodySha256, to: &output)
        output.append(UInt8(ascii: "}"))
        return output
    }

    /// Reads clientData v1 from the bytes an app signed (any valid JSON object with these members and `"v": 1`).
    public init(parsing bytes: some Collection<UInt8>) throws(ParseError) {
        let fields: Fields
        do {
            // Plain JSON, which is what apps sign, takes the fast path; `JSONDecoder` reads the rest.
            let plain = bytes.withContiguousStorageIfAvailable {
                PlainJSONDecoder.decode(Fields.self, from: UnsafeRawBufferPointer($0), unreadMembers: .ignore)
            }
            fields = try (plain ?? nil) ?? JSONDecoder().decode(Fields.self, from: Data(bytes))
        } catch {
            throw ParseError(description: "clientData is not v1 JSON {v, challenge, method, path, bodySha256}")
        }
        guard fields.v == 1 else { throw ParseError(description: "clientData version \(fields.v) is not 1") }
        self.init(challenge: fields.challenge, method: fields.method, path: fields.path, bodySha256: fields.bodySha256)
    }

    /// The members of clientData v1's JSON as ``init(parsing:)`` reads them, before the version is checked.
    package struct Fields: PlainJSONReadable, Equatable {
        var v: Int
        var challenge: String
        var method: String
        var path: String
        var bodySha256: String

        package init(plain value: PlainJSONValue, unread: PlainJSONUnreadMembers) throws(PlainJSONDeclined) {
            var members = try PlainJSONMembers(value)
            v = try members.value("v").plainInt()
            challenge = try members.string("challenge")
            method = try members.string("method")
            path = try members.string("path")
            bodySha256 = try members.string("bodySha256")
            try members.finish(unread)
        }
    }

    /// A JSON string: quoted, with `"` and `\` escaped and control characters (below U+0020) as `\u00XX`.
    private static func appendString(_ text: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                output += [UInt8(ascii: "\\"), byte]
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                output += Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            default:
                output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }
}
