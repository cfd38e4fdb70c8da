import DeviceSimulator
import AttestTestSupport
import AttestGuardRuntime
import AttestGuardServer
import Foundation
import Testing

/// Bodies no client should send: none of them may produce a 500, and each gets a JSON error.
@Suite("HTTP: malformed bodies")
struct MalformedInputTests {
    static let routes = ["/v1/challenges", "/v1/attestations", "/v1/assertions"]

    @Test("random bytes, truncated JSON, wrong types, bad base64 and huge fields are 4xx, never 5xx")
    func malformedBodies() async throws {
        try await ServerHarness.run(.sqlite) { api in
            var generator = SplitMix64(seed: 0xA77E57)
            var bodies: [Data] = [
                Data(), Data("null".utf8), Data("[]".utf8), Data("{".utf8), Data("\"text\"".utf8), Data("{}".utf8),
                Data(#"{"appId": 5}"#.utf8), Data(#"{"appId": null, "purpose": "attestation"}"#.utf8),
                Data(#"{"appId":"ABCDE12345.com.example.attestguard","purpose":"teleport","userId":"u"}"#.utf8),
                Data(#"{"appId":"ABCDE12345.com.example.attestguard","purpose":"assertion","userId":"u","keyId":"%%%"}"#.utf8),
                Data(#"{"appId":"ABCDE12345.com.example.attestguard","keyId":"!!","attestation":"@@","challenge":"~~","userId":"u"}"#.utf8),
                Data(#"{"appId":"ABCDE12345.com.example.attestguard","keyId":"AAAA","attestation":"AAAA","challenge":"AAAA","userId":""}"#.utf8),
                Data(#"{"appId":"ABCDE12345.com.example.attestguard","keyId":"\#(Data(count: 32).base64EncodedString())","assertion":"AAAA","clientData":"e30","userId":"u","request":{"method":"POST","path":"/","bodySha256":"x"}}"#.utf8),
                Data(#"{"appId":"ABCDE12345.com.example.attestguard","keyId":"\#(Data(count: 32).base64EncodedString())","assertion":"AAAA","clientData":"e30","userId":"u","request":{"method":"POST","path":"/","bodySha256":"\#(Data(count: 32).base64URL)","attributes":{"a":[1]}}}"#.utf8),
                Data(#"{"appId":"\#(String(repeating: "A", count: 100_000))"}"#.utf8),
                Data(#"{"appId":"ABCDE12345.com.example.attestguard","purpose":"attestation","userId":"\#(String(repeating: "u", count: 5_000))"}"#.utf8),
                Data(repeating: 0x7B, count: 70_000),
                Data(#"{"appId":"ABCDE12345.com.example.attestguard","keyId":"\#(Data(count: 32).base64EncodedString())","attestation":"\#(Data(count: 40_000).base64EncodedString())","challenge":"\#(Data(count: 32).base64URL)","userId":"u"}"#.utf8),
            ]
            for _ in 0..<150 {
                let count = Int(generator.next() % 512)
                bodies.append(Data((0..<count).map { _ in UInt8(truncatingIfNeeded: generator.next()) }))
            }
            for route in Self.routes {
                for body in bodies {
                    let reply = try await api.send(.post, route, body: body)
                    #expect((400..<500).contains(reply.status), "\(route) answered \(reply.status) to \(body.prefix(80).base64EncodedString()): \(reply.text.prefix(200))")
                    #expect(reply.errorCode != nil, "\(route): \(reply.text.prefix(200))")
                }
            }
            let wrongType = try await api.send(.post, "/v1/challenges", body: Data("{}".utf8), contentType: "text/plain")
            #expect(wrongType.status == 415)
        }
    }

    /// Most corrupted bytes break a check; a few land where nothing is signed or used (the copy of Apple's root
    /// inside the receipt's certificate bag: the chain is built to the pinned root instead), and such an object
    /// is still genuine. Either way: no 5xx, and one challenge registers at most one object.
    @Test("corrupted attestations are refused with a 4xx or, if still genuine, accepted once")
    func corruptedAttestation() async throws {
        try await ServerHarness.run(.sqlite) { api in
            let app = SimulatedApps.make(user: "olga", device: "olga-1")
            let challenge = try await api.challenge(purpose: "attestation", userId: "olga")
            let good = try app.attestation(challenge: challenge, at: api.clock.now())
            var generator = SplitMix64(seed: 7)
            let bytes = try #require(Data(base64Encoded: good.attestation))
            var accepted = 0
            for round in 0..<60 {
                var mutated = bytes
                let index = Int(generator.next() % UInt64(mutated.count))
                mutated[index] ^= UInt8(truncatingIfNeeded: generator.next() | 1)
                if round % 10 == 0 { mutated = mutated.prefix(Int(generator.next() % UInt64(mutated.count))) }
                var body = good
                body.attestation = mutated.base64EncodedString()
                let reply = try await api.post("/v1/attestations", body)
                #expect((400..<500).contains(reply.status) || reply.status == 201, "round \(round) byte \(index): \(reply.text.prefix(200))")
                if reply.status == 201 { accepted += 1 }
            }
            #expect(accepted <= 1)
            // Refused objects consumed nothing: the genuine object registers unless a harmless variant did.
            let final = try await api.post("/v1/attestations", good)
            #expect(final.status == (accepted == 0 ? 201 : 409), "\(final.text)")
        }
    }
}

@Suite("JSON null detection")
struct JSONNullDetectionTests {
    @Test("null outside strings is found; inside strings and escapes it is not", arguments: [
        (#"{"keyId": null}"#, true), (#"[1,null]"#, true), (#"{"a":"null"}"#, false), (#"{"a":"x\"null"}"#, false),
        (#"{"a":"\\","b":null}"#, true), (#"{"nullable":1}"#, false), (#"{"a":true}"#, false),
    ])
    func detection(json: String, expected: Bool) {
        #expect(JSONBodyProbe.containsNull(json) == expected)
    }
}
