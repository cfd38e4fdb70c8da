import AttestGuardRuntime
import AttestGuardServer
import Foundation
import HTTPTypes
import Testing

/// The HTTP protocol's own refusals: a wrong method on a known path is 405 with `Allow`, a body not labelled
/// `application/json` (with no parameter but `charset=utf-8`) is 415, and an object naming a key twice is 400.
@Suite("HTTP: methods, media types, duplicate keys")
struct ProtocolHygieneTests {
    static let challengeBody = Data(#"{"appId":"ABCDE12345.com.example.attestguard","purpose":"attestation","userId":"hygiene"}"#.utf8)

    @Test("a wrong method on a known path is 405 with Allow; an unknown path stays 404")
    func methodNotAllowed() async throws {
        try await ServerHarness.run(.sqlite) { api in
            let cases: [(HTTPRequest.Method, String, String)] = [
                (.get, "/v1/challenges", "POST"),
                (.delete, "/healthz", "GET"),
                (.put, "/v1/score", "POST"),
                (.delete, "/v1/apps/ABCDE12345.com.example.attestguard/keys/AAAA", "GET"),
                (.get, "/v1/apps/ABCDE12345.com.example.attestguard/keys/AAAA/revoke", "POST"),
            ]
            for (method, path, allow) in cases {
                let reply = try await api.send(method, path)
                #expect(reply.status == 405, "\(method) \(path): \(reply.status) \(reply.text)")
                #expect(reply.errorCode == "method_not_allowed", "\(method) \(path): \(reply.text)")
                #expect(reply.headers[.allow] == allow, "\(method) \(path): Allow \(reply.headers[.allow] ?? "none")")
            }
            let unknown = try await api.send(.get, "/v1/nothing-here")
            #expect(unknown.status == 404 && unknown.errorCode == "not_found")
        }
    }

    @Test("a body not labelled application/json (charset=utf-8 the only parameter) is 415", arguments: [
        "text/plain", "application/json; charset=latin1", "application/json; foo=bar", "application/jsonx",
        "application/json; charset=utf-8; boundary=x", "application/x-www-form-urlencoded", "application/json charset=utf-8",
    ])
    func unsupportedMediaType(contentType: String) async throws {
        try await ServerHarness.run(.sqlite) { api in
            let reply = try await api.send(.post, "/v1/challenges", body: Self.challengeBody, contentType: contentType)
            #expect(reply.status == 415, "\(contentType): \(reply.status) \(reply.text)")
            #expect(reply.errorCode == "unsupported_media_type")
        }
    }

    @Test("a body without Content-Type is 415; no body and no Content-Type is an empty JSON body")
    func missingContentType() async throws {
        try await ServerHarness.run(.sqlite) { api in
            let withBody = try await api.send(.post, "/v1/challenges", body: Self.challengeBody, contentType: nil)
            #expect(withBody.status == 415, "\(withBody.text)")
            #expect(withBody.errorCode == "unsupported_media_type")
            let empty = try await api.send(.post, "/v1/challenges")
            #expect(empty.status == 400 && empty.errorCode == "malformed_json", "\(empty.text)")
        }
    }

    @Test("application/json in any case, with charset=utf-8 in any case or quoted, is accepted", arguments: [
        "application/json", "Application/JSON", "application/json; charset=utf-8", "application/json;charset=UTF-8",
        "application/json ; Charset=\"utf-8\"",
    ])
    func acceptedMediaTypes(contentType: String) async throws {
        try await ServerHarness.run(.sqlite) { api in
            let reply = try await api.send(.post, "/v1/challenges", body: Self.challengeBody, contentType: contentType)
            #expect(reply.status == 201, "\(contentType): \(reply.status) \(reply.text)")
        }
    }

    @Test("an object that names a key twice is 400 malformed_json, at any depth and however the key is escaped", arguments: [
        #"{"appId":"ABCDE12345.com.example.attestguard","purpose":"attestation","userId":"a","userId":"b"}"#,
        #"{"appId":"ABCDE12345.com.example.attestguard","purpose":"attestation","userId":"a","user\u0049d":"b"}"#,
        #"{"appId":"ABCDE12345.com.example.attestguard","appId":"ABCDE12345.com.example.attestguard","purpose":"attestation","userId":"a"}"#,
        #"{"appId":"x","keyId":"k","request":{"method":"POST","method":"GET"}}"#,
    ])
    func duplicateKeys(body: String) async throws {
        try await ServerHarness.run(.sqlite) { api in
            let reply = try await api.send(.post, "/v1/challenges", body: Data(body.utf8))
            #expect(reply.status == 400, "\(reply.text)")
            #expect(reply.errorCode == "malformed_json", "\(reply.text)")
        }
    }

    @Test("keys repeated in different objects, and key-like strings in values, are not duplicates", arguments: [
        (#"{"a":{"k":1},"b":{"k":2}}"#, nil as String?),
        (#"{"a":[{"k":1},{"k":2}],"k":"k"}"#, nil),
        (#"{"a":"\"k\":","k":1}"#, nil),
        (#"{"a":[1,{"x":1}],"x":2}"#, nil),
        (#"{"a":{"k":1,"k":2}}"#, "k"),
        (#"{"caf\u00e9":1,"café":2}"#, "café"),
        (#"{"café":1,"cafe\u0301":2}"#, nil),
    ])
    func duplicateScan(json: String, duplicate: String?) {
        #expect(JSONBodyProbe.duplicateKey(json) == duplicate)
    }

    @Test("a comma before a closing brace or bracket is found outside strings only", arguments: [
        (#"{"a":1,}"#, true), (#"[1,2 , ]"#, true), (#"{"a":[1,]}"#, true), (#"{"a":",}"}"#, false), (#"{"a":[1,2]}"#, false),
        ("{\"a\":1,\r\n}", true),
    ])
    func trailingCommaScan(json: String, found: Bool) {
        #expect(JSONBodyProbe.hasTrailingComma(json) == found)
    }

    @Test("JSON text must be UTF-8: UTF-16 and UTF-32 (either order), a byte order mark and broken sequences are refused")
    func encodingScan() throws {
        let text = #"{"appId":"x","source":null}"#
        #expect(JSONBodyProbe.isUTF8Text(Array(text.utf8)))
        for encoding in [String.Encoding.utf16LittleEndian, .utf16BigEndian, .utf16, .utf32LittleEndian, .utf32BigEndian] {
            let bytes = try #require(text.data(using: encoding))
            #expect(!JSONBodyProbe.isUTF8Text(Array(bytes)), "\(encoding)")
        }
        #expect(!JSONBodyProbe.isUTF8Text([0xEF, 0xBB, 0xBF] + Array(text.utf8)))
        #expect(!JSONBodyProbe.isUTF8Text(Array(#"{"a":""#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8)))
    }

    @Test("HEAD answers as GET does, without the body: a route, a refusal, an unknown path")
    func headAsGet() async throws {
        try await ServerHarness.run(.sqlite) { api in
            for (path, key) in [("/healthz", nil), ("/v1/admin/rules", ServerHarness.adminKey), ("/v1/admin/rules", nil), ("/nowhere", nil)] as [(String, String?)] {
                let get = try await api.send(.get, path, apiKey: key)
                let head = try await api.send(.head, path, apiKey: key)
                #expect(head.status == get.status, "\(path): HEAD \(head.status), GET \(get.status)")
                #expect(head.text.isEmpty, "\(path): \(head.text)")
                #expect(head.headers[.contentType] == get.headers[.contentType], "\(path)")
                #expect(head.headers[.contentLength] == get.headers[.contentLength] || get.headers[.contentLength] == nil, "\(path)")
            }
        }
    }

    @Test("a second Host is 400 and a transfer coding other than chunked is 501, both with the JSON shape and X-Request-Id")
    func framingRefusals() async throws {
        try await ServerHarness.run(.sqlite) { api in
            var twoHosts = HTTPFields()
            twoHosts.append(HTTPField(name: HTTPField.Name("Host")!, value: "other.example"))
            let hosts = try await api.send(.get, "/healthz", apiKey: nil, headers: twoHosts)
            #expect(hosts.status == 400 && hosts.errorCode == "malformed_request" && hosts.headers[HTTPField.Name("X-Request-Id")!] != nil, "\(hosts.text)")
            var gzip = HTTPFields()
            gzip[.transferEncoding] = "gzip, chunked"
            gzip[.contentType] = "application/json"
            let coded = try await api.send(.post, "/v1/challenges", body: Data("{}".utf8), headers: gzip)
            #expect(coded.status == 501 && coded.errorCode == "malformed_request", "\(coded.text)")
            #expect(try await api.send(.get, "/healthz", apiKey: nil).status == 200)
        }
    }

    @Test("a member the body does not have is 400 invalid_field naming it, at the top and nested, on every kind of body")
    func unknownMembers() async throws {
        try await ServerHarness.run(.sqlite) { api in
            let app = "ABCDE12345.com.example.attestguard"
            let cases: [(String, String, String?, String)] = [
                ("/v1/challenges", #"{"appId":"\#(app)","purpose":"attestation","userid":"a"}"#, ServerHarness.apiKey, "userid"),
                ("/v1/score", #"{"appId":"\#(app)","userId":"a","acton":"purchase"}"#, ServerHarness.apiKey, "acton"),
                ("/v1/assertions", #"{"appId":"\#(app)","keyId":"AAAA","assertion":"AAAA","clientData":"AAAA","userId":"a","request":{"method":"POST","path":"/x","bodySha256":"x","methd":"GET"}}"#, ServerHarness.apiKey, "request.methd"),
                ("/v1/labels", #"{"labels":[{"appId":"\#(app)","userId":"u","label":"fraud","source":"s","sorce":"t"}]}"#, ServerHarness.adminKey, "labels.0.sorce"),
            ]
            for (path, body, key, member) in cases {
                let reply = try await api.send(.post, path, body: Data(body.utf8), apiKey: key)
                #expect(reply.status == 400 && reply.errorCode == "invalid_field", "\(path): \(reply.text)")
                #expect(reply.text.contains(member), "\(path): \(reply.text)")
            }
            let fine = try await api.send(.post, "/v1/challenges", body: Data(#"{"appId":"\#(app)","purpose":"attestation","userId":"a"}"#.utf8))
            #expect(fine.status == 201, "\(fine.text)")
        }
    }

    @Test("the guards hold for every route's body: a UTF-16 body, a trailing comma and an escaped duplicate key are 400 malformed_json")
    func bodiesTheGuardsRefuse() async throws {
        try await ServerHarness.run(.sqlite) { api in
            let challenge = #"{"appId":"ABCDE12345.com.example.attestguard","purpose":"attestation","userId":"a"}"#
            #expect(try await api.send(.post, "/v1/challenges", body: Data(challenge.utf8)).status == 201)
            let bodies = [
                try #require(challenge.data(using: .utf16LittleEndian)),
                try #require(challenge.data(using: .utf16BigEndian)),
                Data(challenge.dropLast().utf8) + Data(#","}"#.utf8),
                Data(#"{"appId":"ABCDE12345.com.example.attestguard","purpose":"attestation","userId":"a","userId":"b"}"#.utf8),
            ]
            for body in bodies {
                let reply = try await api.send(.post, "/v1/challenges", body: body)
                #expect(reply.status == 400 && reply.errorCode == "malformed_json", "\(reply.text)")
            }
        }
    }
}
