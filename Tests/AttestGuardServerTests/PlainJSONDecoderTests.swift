import AttestGuardRuntime
@testable import AttestGuardServer
import AttestGuardWire
import AttestTestSupport
import Foundation
import Testing

/// The fast JSON path (``PlainJSONDecoder``) against the slow one it stands in front of (the text guards and
/// `JSONDecoder` refusing unread members): on every text, reading a body gives the same value or the same error
/// whichever path reads it, and the bodies clients send take the fast one.
@Suite("JSON: the plain fast path reads as the strict slow path")
struct PlainJSONDecoderTests {
    @Test("seeded random bodies, right and wrong, read the same on both paths", arguments: 0..<4)
    func randomBodies(round: Int) throws {
        var generator = SplitMix64(seed: 0x9A1A_7E50 &+ UInt64(round))
        var fast = 0
        let count = 1_500
        for index in 0..<count {
            var writer = RandomJSONWriter(generator: generator)
            let text = writer.body(Self.schemas.randomElement(using: &writer.generator)!)
            generator = writer.generator
            fast += try Self.checkAll(Array(text.utf8), "round \(round) #\(index): \(text)")
        }
        // Most random bodies are plain: the fast path must not decline them all without anyone noticing.
        #expect(fast > count / 4, "the fast path read \(fast) of \(count) bodies")
    }

    @Test("mutations of a plain body read the same on both paths")
    func mutatedBodies() throws {
        let body = AssertionRequestBody(
            appId: "TEAMID1234.com.example.shop", keyId: "a2V5LWlk", assertion: "YXNzZXJ0aW9u", clientData: "Y2xpZW50LWRhdGE=",
            userId: "user-\u{e9}-\u{1F600}",
            request: AssertedRequestBody(
                method: "POST", path: "/api/orders?q=a/b", bodySha256: "aGFzaA", ip: "2001:db8::1", action: "purchase",
                attributes: ["plan": .string("gold"), "amount": .number(12.5), "first": .bool(true), "count": .number(3)]
            )
        )
        let original = Array(try WireJSON.encoder().encode(body))
        for mutation in MutationCorpus(of: original, named: "plain-json", count: 2_000) {
            _ = try Self.checkAll(mutation.bytes, "\(mutation)")
        }
    }

    @Test("the bodies clients and gateways send take the fast path and read as written")
    func clientBodiesTakeTheFastPath() throws {
        let assertion = AssertionRequestBody(
            appId: "TEAMID1234.com.example.shop", keyId: "a2V5LWlk+/=", assertion: String(repeating: "QUJD", count: 200),
            clientData: "eyJ2IjoxfQ==", userId: "u\"ser\\\u{1}\u{e9}\u{1F600}",
            request: AssertedRequestBody(
                method: "POST", path: "/api/orders", bodySha256: "aGFzaA", ip: "203.0.113.9", action: "purchase",
                attributes: ["plan": .string("gold"), "amount": .number(-12.25), "first": .bool(false), "count": .number(0)]
            )
        )
        let score = ScoreRequestBody(appId: "TEAMID1234.com.example.shop", keyId: "a2V5", userId: "u", deviceId: "d", ip: "::1", action: "login")
        for encoder in [WireJSON.encoder(), JSONEncoder()] {
            let assertionText = try encoder.encode(assertion)
            #expect(PlainJSONDecoder.decode(AssertionRequestBody.self, from: assertionText, unreadMembers: .decline(ignoringTopLevel: [])) == assertion)
            let scoreText = try encoder.encode(score)
            #expect(PlainJSONDecoder.decode(ScoreRequestBody.self, from: scoreText, unreadMembers: .decline(ignoringTopLevel: [])) == score)
        }
        let clientData = ClientDataV1(challenge: "Y2hhbGxlbmdl", method: "POST", path: "/a/b?c=\"d\"", bodySha256: "h")
        #expect(clientData.bytes.withUnsafeBytes { PlainJSONDecoder.decode(ClientDataFields.self, from: $0, unreadMembers: .ignore) }?.path == clientData.path)
        #expect(clientData.bytes.withUnsafeBytes { PlainJSONDecoder.decode(ClientDataV1.Fields.self, from: $0, unreadMembers: .ignore) } != nil)
        #expect(try ClientDataV1(parsing: clientData.bytes) == clientData)
    }

    @Test("strings scanned eight bytes at a time: an escape, a raw control byte or non-ASCII at every position of every length")
    func stringScanPositions() throws {
        let inserts = [#"\""#, #"\\"#, #"\n"#, #"\u00e9"#, "\u{1}", "\u{1F}", "\u{7F}", "\u{e9}", "\u{1F600}", "x"]
        for length in 0...20 {
            for position in 0...length {
                for insert in inserts {
                    let text = String(repeating: "a", count: position) + insert + String(repeating: "b", count: length - position)
                    let body = #"{"appId":"TEAMID1234.com.example.shop","userId":""# + text + #""}"#
                    let fast = Self.check(ScoreRequestBody.self, Array(body.utf8), "\(length) \(position) \(insert)", same: ==)
                    // A raw control character is declined to the slow path; everything else is read on the fast one.
                    let declined = insert.unicodeScalars.allSatisfy { $0.value < 0x20 }
                    #expect(fast == (declined ? 0 : 1), "\(length) \(position) \(insert)")
                }
            }
        }
    }

    @Test("what the slow path refuses, the fast path declines", arguments: [
        #"{"appId":"a","keyId":null}"#, #"{"appId":"a","appId":"b"}"#, #"{"appId":"a",}"#, #"{"appId":"a","extra":1}"#,
        "\u{FEFF}{\"appId\":\"a\"}", #"{"appId":"\ud800"}"#, #"{"appId":"a","attributes":{"n":1e3}}"#, #"{"appId":01}"#,
"{\"appId\":\"a\u{1}\"}", #"{"appId":"a"} x"#, #"[{"appId":"a"}]"#,
        #"{"appId":"a","attributes":{"n":123456789012345678901}}"#,
    ])
    func declines(text: String) {
        #expect(PlainJSONDecoder.decode(ScoreRequestBody.self, from: Data(text.utf8), unreadMembers: .decline(ignoringTopLevel: [])) == nil)
    }

    @Test("a text nested past the bound declines instead of recursing")
    func deepNesting() {
        let text = #"{"appId":"a","attributes":"# + String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000) + "}"
        #expect(PlainJSONDecoder.decode(ScoreRequestBody.self, from: Data(text.utf8), unreadMembers: .ignore) == nil)
    }

    /// The field lists of the bodies the random writer draws from, so that its texts are mostly plausible bodies.
    static let schemas: [[RandomJSONWriter.Field]] = [
        [
            .init("appId", .string), .init("keyId", .string), .init("assertion", .string), .init("clientData", .string),
            .init("userId", .string),
            .init("request", .object([
                .init("method", .string), .init("path", .string), .init("bodySha256", .string, optional: true),
                .init("ip", .string, optional: true), .init("action", .string, optional: true),
                .init("attributes", .scalars, optional: true),
            ])),
        ],
        [
            .init("appId", .string), .init("keyId", .string, optional: true), .init("userId", .string, optional: true),
            .init("deviceId", .string, optional: true), .init("ip", .string, optional: true), .init("action", .string, optional: true),
            .init("attestStatus", .string, optional: true), .init("attributes", .scalars, optional: true),
        ],
        [
            .init("appId", .string, optional: true), .init("keyId", .string, optional: true), .init("label", .string, optional: true),
            .init("source", .string, optional: true),
            .init("labels", .array([.init("appId", .string), .init("userId", .string, optional: true), .init("label", .string)]), optional: true),
        ],
        [
            .init("mode", .word(["enforce", "monitor", "shadow", "off"]), optional: true), .init("attestationRequiredPercent", .integer, optional: true),
            .init("defaultProtection", .word(["require", "score", "open"]), optional: true), .init("routes", .words(["require", "score", "open"]), optional: true),
        ],
        [
            .init("v", .integer), .init("challenge", .string), .init("method", .string), .init("path", .string), .init("bodySha256", .string),
        ],
    ]

    /// Reads `bytes` as every body type on both paths; returns how many types the fast path read.
    static func checkAll(_ bytes: [UInt8], _ label: String) throws -> Int {
        var fast = 0
        fast += check(AssertionRequestBody.self, bytes, label, same: ==)
        fast += check(ScoreRequestBody.self, bytes, label, same: ==)
        fast += check(LabelRequestBody.self, bytes, label) { $0.labels == $1.labels && $0.single == $1.single }
        fast += check(AppPolicyOverrideBody.self, bytes, label) {
            $0.mode == $1.mode && $0.attestationRequiredPercent == $1.attestationRequiredPercent
                && $0.defaultProtection == $1.defaultProtection && $0.routes == $1.routes
        }
        fast += check(ChallengeRequestBody.self, bytes, label, same: ==)
        fast += check(AppChallengeRequestBody.self, bytes, label, same: ==)
        // clientData: `JSONDecoder` as it is, unread members ignored; the direct reading of ClientDataV1 declines
        // where the Decodable one does.
        let plain = PlainJSONDecoder.decode(ClientDataFields.self, from: Data(bytes), unreadMembers: .ignore)
        let direct = PlainJSONDecoder.decode(ClientDataV1.Fields.self, from: Data(bytes), unreadMembers: .ignore)
        let throughDecodable = bytes.withUnsafeBytes { PlainJSONDocument(parsing: $0) }.flatMap {
            PlainJSONDecoder.decodeThroughDecodable(ClientDataV1.Fields.self, from: $0, unreadMembers: .ignore)
        }
        #expect(direct == throughDecodable, "clientData read directly: \(label)")
        if let plain {
            #expect(plain == (try? JSONDecoder().decode(ClientDataFields.self, from: Data(bytes))), "clientData: \(label)")
            fast += 1
        }
        #expect((try? ClientDataV1(parsing: bytes)).map(ClientDataFields.init) == (try? JSONDecoder().decode(ClientDataFields.self, from: Data(bytes))).flatMap { $0.v == 1 ? $0 : nil }, "\(label)")
        return fast
    }

    /// Reads `bytes` as `Value` on both paths and expects the same outcome; returns 1 when the fast path read it.
    static func check<Value: Decodable>(_ type: Value.Type, _ bytes: [UInt8], _ label: String, same: (Value, Value) -> Bool) -> Int {
        let data = Data(bytes)
        let slow = Result { try JSONBody.decodeStrictlySlowly(Value.self, from: data) }
        let plain = PlainJSONDecoder.decode(Value.self, from: data, unreadMembers: .decline(ignoringTopLevel: StrictJSONDecoding.ignoredMembers(of: Value.self)))
        let combined = Result { try JSONBody.decodeStrictly(Value.self, from: data) }
        switch (slow, combined) {
        case (.success(let slowValue), .success(let combinedValue)):
            #expect(same(slowValue, combinedValue), "\(Value.self): \(label)")
        case (.failure(let slowError), .failure(let combinedError)):
            #expect(String(describing: slowError) == String(describing: combinedError), "\(Value.self): \(label)")
        case (.success, .failure(let error)):
            Issue.record("\(Value.self): the slow path reads it, the combined one refuses it with \(error): \(label)")
        case (.failure(let error), .success):
            Issue.record("\(Value.self): the slow path refuses it with \(error), the fast one reads it: \(label)")
        }
        if let plain, case .success(let slowValue) = slow {
            #expect(same(plain, slowValue), "\(Value.self): \(label)")
        }
        // A type read directly (PlainJSONReadable) reads what its Decodable conformance reads from the same tree, and
        // declines where that declines (the corpus has no object of more than 64 members, which the direct reading
        // leaves to the slow path): the direct reading loses no body the fast path read.
        if Value.self is any PlainJSONReadable.Type {
            let rule = PlainJSONDecoder.UnreadMembers.decline(ignoringTopLevel: StrictJSONDecoding.ignoredMembers(of: Value.self))
            let throughDecodable = bytes.withUnsafeBytes { PlainJSONDocument(parsing: $0) }.flatMap {
                PlainJSONDecoder.decodeThroughDecodable(Value.self, from: $0, unreadMembers: rule)
            }
            switch (plain, throughDecodable) {
            case (nil, nil): break
            case (let direct?, let decoded?): #expect(same(direct, decoded), "\(Value.self) read directly: \(label)")
            case (nil, _?): Issue.record("\(Value.self): the direct reading declines what Decodable reads: \(label)")
            case (_?, nil): Issue.record("\(Value.self): the direct reading reads what Decodable declines: \(label)")
            }
        }
        return plain == nil ? 0 : 1
    }
}

/// clientData v1's members as `JSONDecoder` reads them, to hold ``ClientDataV1/init(parsing:)``'s fast path equal.
struct ClientDataFields: Decodable, Equatable {
    var v: Int
    var challenge: String
    var method: String
    var path: String
    var bodySha256: String

    init(v: Int, challenge: String, method: String, path: String, bodySha256: String) {
        (self.v, self.challenge, self.method, self.path, self.bodySha256) = (v, challenge, method, path, bodySha256)
    }

    init(_ clientData: ClientDataV1) {
        self.init(v: 1, challenge: clientData.challenge, method: clientData.method, path: clientData.path, bodySha256: clientData.bodySha256)
    }
}

/// Writes random JSON objects after a field list: mostly valid bodies in varied spellings (member order, white
/// space, escapes, non-ASCII, numbers of every shape), and now and then what the API refuses (a missing or unknown
/// member, a wrong type, `null`, a key twice, a trailing comma, an exponent, a lone surrogate).
struct RandomJSONWriter {
    struct Field: Sendable {
        let name: String
        let kind: Kind
        let optional: Bool

        init(_ name: String, _ kind: Kind, optional: Bool = false) {
            (self.name, self.kind, self.optional) = (name, kind, optional)
        }
    }

    indirect enum Kind: Sendable {
        case string
        case integer
        case word([String])
        case words([String])
        case scalars
        case object([Field])
        case array([Field])
    }

    var generator: SplitMix64

    mutating func chance(_ percent: UInt64) -> Bool { generator.next() % 100 < percent }

    mutating func body(_ fields: [Field]) -> String { object(fields, depth: 0) }

    mutating func object(_ fields: [Field], depth: Int) -> String {
        var members: [String] = []
        for field in fields {
            if field.optional ? chance(40) : chance(2) { continue }
            members.append(key(field.name) + space() + ":" + space() + value(field.kind, depth: depth))
            if chance(1) { members.append(key(field.name) + ":" + value(field.kind, depth: depth)) }
        }
        if chance(3) { members.append(key(["extra", "userid", "appId", "v"].randomElement(using: &generator)!) + ":" + scalar()) }
        members.shuffle(using: &generator)
        let trailing = chance(1) ? "," : ""
        return "{" + space() + members.joined(separator: space() + "," + space()) + trailing + space() + "}"
    }

    mutating func value(_ kind: Kind, depth: Int) -> String {
        if chance(2) { return "null" }
        if chance(3) { return scalar() }
        switch kind {
        case .string: return string()
        case .integer: return integer()
        case .word(let words): return quoted(words.randomElement(using: &generator)!)
        case .words(let words):
            let count = Int(generator.next() % 4)
            let members = (0..<count).map { _ in quoted("/r\(generator.next() % 6)") + ":" + quoted(words.randomElement(using: &generator)!) }
            return "{" + members.joined(separator: ",") + "}"
        case .scalars:
            let count = Int(generator.next() % 5)
            let members = (0..<count).map { _ in key(["plan", "amount", "first", "é", "a\u{0}"].randomElement(using: &generator)!) + ":" + scalar() }
            return "{" + members.joined(separator: "," + space()) + "}"
        case .object(let fields): return object(fields, depth: depth + 1)
        case .array(let fields):
            let count = Int(generator.next() % 3)
            return "[" + (0..<count).map { _ in object(fields, depth: depth + 1) }.joined(separator: ",") + "]"
        }
    }

    mutating func scalar() -> String {
        switch generator.next() % 4 {
        case 0: string()
        case 1: number()
        case 2: chance(50) ? "true" : "false"
        default: chance(10) ? "[]" : chance(10) ? "{}" : integer()
        }
    }

    mutating func integer() -> String {
        ["0", "1", "-1", "42", "100", "101", "-0", "9223372036854775807", "9223372036854775808", "1.0", "7e1"].randomElement(using: &generator)!
    }

    mutating func number() -> String {
        ["0.5", "-12.25", "3", "1e2", "1E-2", "0.1", "123456789.123456789", "-0.0", "1.7976931348623157", "00", "1."].randomElement(using: &generator)!
    }

    mutating func key(_ name: String) -> String { quoted(name) }

    /// `text` as a JSON string, each character written plainly or escaped at random.
    mutating func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "/": out += chance(30) ? "\\/" : "/"
            case "\n": out += chance(50) ? "\\n" : "\\u000a"
            case _ where scalar.value < 0x20: out += chance(95) ? String(format: "\\u%04x", scalar.value) : String(scalar)
            case _ where chance(10):
                for unit in String(scalar).utf16 { out += String(format: chance(50) ? "\\u%04x" : "\\u%04X", unit) }
            default: out.unicodeScalars.append(scalar)
            }
        }
        if chance(1) { out += "\\ud83d" }
        return out + "\""
    }

    mutating func string() -> String {
        let pool: [String] = ["abc", "TEAMID.com.example", "a2V5+/=", "/api/orders?q=1", "é", "😀", "\u{0}", "\t", "\"", "\\", "ß", "\u{301}", " "]
        let count = Int(generator.next() % 4)
        return quoted((0..<count).map { _ in pool.randomElement(using: &generator)! }.joined())
    }

    mutating func space() -> String {
        chance(80) ? "" : [" ", "\n", "\t ", "\r\n"].randomElement(using: &generator)!
    }
}
