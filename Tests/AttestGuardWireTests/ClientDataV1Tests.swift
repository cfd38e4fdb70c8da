import AttestGuardWire
import AttestTestSupport
import Foundation
import Testing

/// clientData v1 bytes are exact JSON the server reads back to the same fields, whatever the strings hold.
struct ClientDataV1Tests {
    @Test("the bytes are the contract's shape, escaping only what JSON requires")
    func shape() throws {
        let clientData = ClientDataV1(challenge: "abc-_", method: "POST", path: "/api/orders?q=\"x\"\\y/z\u{1}é", bodySha256: "h")
        let text = String(decoding: clientData.bytes, as: UTF8.self)
        #expect(text == #"{"v":1,"challenge":"abc-_","method":"POST","path":"/api/orders?q=\"x\"\\y/z\u0001é","bodySha256":"h"}"#)
        #expect(try ClientDataV1(parsing: clientData.bytes) == clientData)
    }

    @Test("5,000 seeded strings round-trip through the bytes")
    func roundTrip() throws {
        var generator = SplitMix64(seed: 0x5EED_C11E)
        let pool: [Character] = Array("azAZ09-._~!$&'()*+,;=:@/?#[]%\"\\ \t\n\u{0}\u{7F}é€😀\u{200B}")
        for _ in 0..<5_000 {
            let path = String((0..<Int.random(in: 0...40, using: &generator)).map { _ in pool.randomElement(using: &generator)! })
            let clientData = ClientDataV1(challenge: "c", method: "PATCH", path: path, bodySha256: "b")
            #expect(try ClientDataV1(parsing: clientData.bytes) == clientData, "\(path.debugDescription)")
        }
    }

    @Test("what is not clientData v1 says why")
    func refusals() {
        #expect(throws: ClientDataV1.ParseError.self) { try ClientDataV1(parsing: Array("{}".utf8)) }
        #expect(throws: ClientDataV1.ParseError.self) {
            try ClientDataV1(parsing: Array(#"{"v":2,"challenge":"c","method":"GET","path":"/","bodySha256":"b"}"#.utf8))
        }
        #expect(throws: ClientDataV1.ParseError.self) { try ClientDataV1(parsing: Array("not json".utf8)) }
    }

    @Test("the request-target is the percent-encoded path and query URLSession sends, never the decoded path")
    func requestTarget() throws {
        let url = try #require(URL(string: "https://shop.example/api/caf%C3%A9/a%2Fb?q=a%20b&x=%3D"))
        #expect(RequestTarget.of(url) == "/api/caf%C3%A9/a%2Fb?q=a%20b&x=%3D")
        #expect(RequestTarget.of(try #require(URL(string: "https://shop.example"))) == "/")
        #expect(RequestTarget.of(try #require(URL(string: "https://shop.example/a?"))) == "/a?")
        #expect(RequestTarget.of(try #require(URL(string: "https://shop.example/a#frag"))) == "/a")
    }
}
