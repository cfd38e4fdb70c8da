import AttestTestSupport
import Foundation

/// Hostile HTTP requests as raw bytes, generated from a seed in seven families: framing, JSON syntax, types, lengths,
/// encodings, members and headers. Each family starts from well-formed requests to the JSON routes (a route may name
/// its method: `PUT /v1/admin/...`) and breaks one thing.
struct HostileRequests {
    static let routes = [
        "/v1/challenges", "/v1/attestations", "/v1/assertions", "/v1/score", "/v1/labels", "/v1/labels/delete",
        "PUT /v1/admin/apps/\(appId)/policy", "/v1/app/challenges", "/v1/app/attestation-outcomes",
    ]
    static let appId = "ABCDE12345.com.example.attestguard"
    static let keyId = Data(repeating: 7, count: 32).base64EncodedString()
    static let challenge = String(repeating: "A", count: 43)
    /// A key of scope `gateway`, for the app-facing routes (``serverEnvironment``).
    static let gatewayKey = "hostile-edge-key-0123456789"
    /// What the server under test adds to the process environment: the gateway's key.
    static let serverEnvironment = [
        "ATTESTGUARD_API_KEYS_NAMES": "gateway,edge", "ATTESTGUARD_API_KEYS_EDGE_SECRET_ENV": "HOSTILE_EDGE_KEY",
        "ATTESTGUARD_API_KEYS_EDGE_SCOPES": "gateway", "HOSTILE_EDGE_KEY": gatewayKey,
    ]

    var generator: SplitMix64

    init(seed: UInt64) { generator = SplitMix64(seed: seed) }

    // MARK: Building blocks

    mutating func number(_ bound: Int) -> Int { Int(generator.next() % UInt64(max(bound, 1))) }

    mutating func pick<T>(_ values: [T]) -> T { values[number(values.count)] }

    mutating func bytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8(truncatingIfNeeded: generator.next()) } }

    /// A well-formed body for `route` as JSON fields (values are JSON text).
    static func fields(for route: String) -> [(String, String)] {
        switch route {
        case "/v1/challenges":
            return [("appId", "\"\(appId)\""), ("purpose", "\"attestation\""), ("userId", "\"hostile\"")]
        case "/v1/attestations":
            return [("appId", "\"\(appId)\""), ("keyId", "\"\(keyId)\""), ("attestation", "\"o2NmbXRv\""),
                    ("challenge", "\"\(challenge)\""), ("userId", "\"hostile\"")]
        case "/v1/assertions":
            return [("appId", "\"\(appId)\""), ("keyId", "\"\(keyId)\""), ("assertion", "\"omlzaWduYXR1cmU=\""),
                    ("clientData", "\"e30\""), ("userId", "\"hostile\""),
                    ("request", #"{"method":"POST","path":"/api/orders","bodySha256":"\#(challenge)","attributes":{"amount":5}}"#)]
        case "/v1/labels":
            return [("appId", "\"\(appId)\""), ("userId", "\"hostile\""), ("label", "\"fraud\""), ("source", "\"hostile-suite\"")]
        case "/v1/labels/delete":
            return [("appId", "\"\(appId)\""), ("userId", "\"hostile\""), ("source", "\"hostile-suite\"")]
        case "PUT /v1/admin/apps/\(appId)/policy":
            return [("mode", "\"enforce\""), ("attestationRequiredPercent", "0")]
        case "/v1/app/challenges":
            return [("purpose", "\"assertion\""), ("keyId", "\"\(keyId)\"")]
        case "/v1/app/attestation-outcomes":
            return [("outcome", "\"failed\""), ("errorCode", "4")]
        default:
            return [("appId", "\"\(appId)\""), ("userId", "\"hostile\""), ("ip", "\"192.0.2.1\""), ("action", "\"purchase\"")]
        }
    }

    static func json(_ fields: [(String, String)]) -> String {
        "{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
    }

    /// A whole request with Content-Length framing and the usual headers, unless `headers` replaces them.
    static func request(
        _ route: String, body: [UInt8], method: String? = nil, headers: [String]? = nil, extraHeaders: [String] = []
    ) -> [UInt8] {
        let (routeMethod, path) = split(route)
        let key = path.hasPrefix("/v1/app/") ? gatewayKey : ServerProcess.apiKey
        var standard = ["Host: localhost", "Authorization: Bearer \(key)", "Content-Type: application/json", "Content-Length: \(body.count)"]
        // The app-facing routes are the gateway's to call, with the client-facing target and the user.
        if path.hasPrefix("/v1/app/") { standard += ["X-Original-URI: /attestguard/challenges", "X-AttestGuard-User: hostile"] }
        let head = "\(method ?? routeMethod) \(path) HTTP/1.1\r\n" + ((headers ?? standard) + extraHeaders).map { $0 + "\r\n" }.joined() + "\r\n"
        return Array(head.utf8) + body
    }

    /// A route's method (POST unless it names one) and path.
    static func split(_ route: String) -> (method: String, path: String) {
        guard let space = route.firstIndex(of: " ") else { return ("POST", route) }
        return (String(route[..<space]), String(route[route.index(after: space)...]))
    }

    mutating func validRequest() -> (route: String, body: [UInt8]) {
        let route = pick(Self.routes)
        return (route, Array(Self.json(Self.fields(for: route)).utf8))
    }
}

extension HostileRequests {
    /// Broken message framing: chunk sizes, transfer codings, lengths that lie, line endings, truncation.
    mutating func framing(_ count: Int) -> [[UInt8]] {
        (0..<count).map { _ in
            let (route, body) = validRequest()
            let headBase = "\(Self.split(route).method) \(Self.split(route).path) HTTP/1.1\r\nHost: l\r\nAuthorization: Bearer \(ServerProcess.apiKey)\r\nContent-Type: application/json\r\n"
            switch number(12) {
            case 0:
                let size = pick(["zz", "-1", "0x10", "FFFFFFFFFFFFFFFFFF", "", " 5", "5;ext=\"", "1e3", "\u{0}"])
                return Array((headBase + "Transfer-Encoding: chunked\r\n\r\n\(size)\r\n").utf8) + body + Array("\r\n0\r\n\r\n".utf8)
            case 1:
                let coding = pick(["identity", "gzip", "chunked, chunked", "gzip, chunked", "Chunked", "x-unknown", "chunked;q=1"])
                return Array((headBase + "Transfer-Encoding: \(coding)\r\nContent-Length: \(body.count)\r\n\r\n").utf8) + body
            case 2:
                let length = pick([0, 1, body.count / 2, body.count - 1, body.count + 1])
                return Array((headBase + "Content-Length: \(length)\r\n\r\n").utf8) + body
            case 3:
                return Array((headBase + "Content-Length: \(body.count)\r\nContent-Length: \(body.count + 3)\r\n\r\n").utf8) + body
            case 4:
                return Array((headBase + "Content-Length: \(body.count)\r\nTransfer-Encoding: chunked\r\n\r\n").utf8) + body
            case 5:
                let whole = Self.request(route, body: body)
                return Array(whole.prefix(number(whole.count)))
            case 6:
                return Array(Self.request(route, body: body).split(separator: 10, omittingEmptySubsequences: false)
                    .map { $0.filter { $0 != 13 } }.joined(separator: [10]))
            case 7:
                let chunked = Array(String(body.count, radix: 16).utf8) + [13, 10] + body + Array("\r\n0\r\n\r\n".utf8)
                return Array((headBase + "Transfer-Encoding: chunked\r\n\r\n").utf8) + Array(chunked.prefix(number(chunked.count)))
            case 8:
                let version = pick(["HTTP/1.0", "HTTP/2.0", "HTTP/0.9", "HTTP/1.1.1", "http/1.1", "HTTP/9.9", ""])
                return Array("POST \(Self.split(route).path) \(version)\r\nHost: l\r\nContent-Length: \(body.count)\r\n\r\n".utf8) + body
            case 9:
                return bytes(number(200) + 1)
            case 10:
                let method = pick(["PO ST", "POST\u{0}", String(repeating: "P", count: 5_000), "\u{1F600}", "GET /x"])
                return Array("\(method) \(Self.split(route).path) HTTP/1.1\r\nHost: l\r\n\r\n".utf8)
            default:
                var whole = Self.request(route, body: body)
                for _ in 0..<(number(4) + 1) { whole[number(whole.count)] = UInt8(truncatingIfNeeded: generator.next()) }
                return whole
            }
        }
    }

    /// Well-framed requests whose body is not valid JSON (or only barely is).
    mutating func jsonSyntax(_ count: Int) -> [[UInt8]] {
        (0..<count).map { _ in
            let (route, body) = validRequest()
            var text = body
            switch number(10) {
            case 0: text = Array(text.prefix(number(text.count)))
            case 1: text.insert(pick(Array("{}[],:\"\\ tfn0-.eE".utf8)), at: number(text.count + 1))
            case 2: if !text.isEmpty { text.remove(at: number(text.count)) }
            case 3: text = Array(String(decoding: text, as: UTF8.self).replacingOccurrences(of: "\"", with: "'").utf8)
            case 4: text = Array((String(decoding: text.dropLast(), as: UTF8.self) + ",}").utf8)
            case 5: text = Array("/* c */".utf8) + text
            case 6: text = Array(String(repeating: "[", count: number(5_000) + 1).utf8)
            case 7: text = [0xEF, 0xBB, 0xBF] + text
            case 8: text = Array(pick(["NaN", "Infinity", "{\"appId\":NaN}", "{\"appId\":01}", "{\"a\":1}{\"b\":2}", "{\"appId\":\"\\x41\"}", "{,}", "", "   "]).utf8)
            default: text = text + text
            }
            return Self.request(route, body: text)
        }
    }

    /// Valid JSON with a value of the wrong type in one field.
    mutating func types(_ count: Int) -> [[UInt8]] {
        (0..<count).map { _ in
            let route = pick(Self.routes)
            var fields = Self.fields(for: route)
            let index = number(fields.count)
            fields[index].1 = pick(["1", "-1", "1.5", "1e400", "-0", "true", "false", "[]", "[\"a\"]", "{}", "{\"a\":1}",
                                    "\"\"", "12345678901234567890123", "[[[[]]]]", "\"1\""])
            if number(4) == 0 { fields.append((pick(["extra", "purpose", "request", "attributes", "__proto__"]), pick(["1", "{}", "\"x\""]))) }
            return Self.request(route, body: Array(Self.json(fields).utf8))
        }
    }

    /// Fields and bodies of every length around the limits: empty, base64 lengths off by one, very long.
    mutating func lengths(_ count: Int) -> [[UInt8]] {
        (0..<count).map { _ in
            let route = pick(Self.routes)
            var fields = Self.fields(for: route)
            let index = number(fields.count)
            let length = pick([0, 1, 31, 32, 33, 42, 43, 44, 45, 255, 256, 257, 1_024, 4_097, 65_536, 131_000, 140_000])
            fields[index].1 = "\"" + String(repeating: pick(["A", "a", "=", "-", "_", "/"]), count: length) + "\""
            return Self.request(route, body: Array(Self.json(fields).utf8))
        }
    }

    /// Text that is not what it seems: invalid UTF-8, escapes of surrogates and control characters, other
    /// encodings of the body, base64 alphabets mixed.
    mutating func encodings(_ count: Int) -> [[UInt8]] {
        (0..<count).map { _ in
            let route = pick(Self.routes)
            var fields = Self.fields(for: route)
            let index = number(fields.count)
            switch number(5) {
            case 0:
                let bad: [[UInt8]] = [[0xC0, 0xAF], [0xFF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82], [0x80]]
                let json = Self.json(fields)
                var body = Array(json.utf8)
                body.insert(contentsOf: pick(bad), at: body.count / 2)
                return Self.request(route, body: body)
            case 1:
                fields[index].1 = "\"" + pick(["\\ud800", "\\udfff\\ud800", "\\u0000", "\\u202e", "\\uFEFF", "caf\\u0065\\u0301",
                                               "\\/\\/", "\\\"", "\\t\\n", "\u{1F600}", "e\u{301}"]) + "\""
            case 2:
                fields[index].1 = "\"" + pick(["++//", "--__", "AA==", "A===", "AAAA AAAA", "AA\nAA", "%2B%2F", "\\u0041AAA"]) + Self.challenge.prefix(number(44)) + "\""
            case 3:
                let json = Self.json(fields)
                let data = json.data(using: pick([.utf16, .utf16BigEndian, .utf32, .isoLatin1])) ?? Data(json.utf8)
                return Self.request(route, body: Array(data))
            default:
                fields[index].1 = "\"" + String(decoding: bytes(number(40)).map { $0 & 0x7F == 0x22 || $0 & 0x7F == 0x5C ? 0x41 : $0 & 0x7F }, as: UTF8.self)
                    .unicodeScalars.map { $0.value < 0x20 ? "\\u00\(String(format: "%02x", $0.value))" : String($0) }.joined() + "\""
            }
            return Self.request(route, body: Array(Self.json(fields).utf8))
        }
    }

    /// Members the body must not have, or must not have so: twice (plainly or by an escape), unknown (at the top or
    /// nested), null, after a trailing comma, in another case; and the whole body in UTF-16 or UTF-32.
    mutating func members(_ count: Int) -> [[UInt8]] {
        (0..<count).map { _ in
            let route = pick(Self.routes)
            var fields = Self.fields(for: route)
            let index = number(fields.count)
            switch number(8) {
            case 0: fields.append(fields[index])
            case 1:
                let name = fields[index].0
                let escaped = "\\u00" + String(format: "%02x", name.unicodeScalars.first!.value) + name.dropFirst()
                fields.append((escaped, fields[index].1))
            case 2: fields.insert((pick(["userid", "appID", "extra", "keyid", "__proto__", "constructor"]), pick(["\"x\"", "1", "{}"])), at: number(fields.count + 1))
            case 3: fields.append(("nested", #"{"a":{"b":[1,2,{"c":null}]}}"#))
            case 4: fields[index].1 = "null"
            case 5:
                let json = Self.json(fields)
                return Self.request(route, body: Array((String(json.dropLast()) + pick([",}", " , }", ",\n}"])).utf8))
            case 6:
                let json = Self.json(fields)
                let encoding = pick([String.Encoding.utf16, .utf16LittleEndian, .utf16BigEndian, .utf32, .utf32LittleEndian, .utf32BigEndian])
                return Self.request(route, body: Array(json.data(using: encoding) ?? Data(json.utf8)))
            default:
                let name = fields[index].0
                fields[index].0 = name.prefix(1).uppercased() + name.dropFirst()
            }
            return Self.request(route, body: Array(Self.json(fields).utf8))
        }
    }

    /// Headers a client should not send: media types, credentials, lengths, ids, names and counts.
    mutating func headers(_ count: Int) -> [[UInt8]] {
        (0..<count).map { _ in
            let (route, body) = validRequest()
            let auth = "Authorization: Bearer \(ServerProcess.apiKey)"
            let length = "Content-Length: \(body.count)"
            switch number(10) {
            case 0:
                let type = pick(["text/plain", "application/json; charset=latin1", "application/json; x=y", "", "application/*",
                                 "APPLICATION/JSON;CHARSET=UTF-8", "application/json;;", "multipart/form-data; boundary=x", "\u{1}"])
                return Self.request(route, body: body, headers: ["Host: l", auth, "Content-Type: \(type)", length])
            case 1:
                let value = pick(["", "Bearer", "Bearer ", "Basic dXNlcjpwYXNz", "bearer \(ServerProcess.apiKey)",
                                  "Bearer " + String(repeating: "k", count: 8_000), "Bearer \u{00e9}", "Bearer \(ServerProcess.apiKey) extra"])
                return Self.request(route, body: body, headers: ["Host: l", "Authorization: \(value)", "Content-Type: application/json", length])
            case 2:
                let value = pick(["+\(body.count)", " \(body.count) ", "\(body.count), \(body.count)", "-1", "0x10", "99999999999999999999", ""])
                return Self.request(route, body: body, headers: ["Host: l", auth, "Content-Type: application/json", "Content-Length: \(value)"])
            case 3:
                let id = pick([String(repeating: "r", count: number(20_000)), "id with spaces", "\u{00e9}\u{00e9}", "", "a\tb"])
                return Self.request(route, body: body, extraHeaders: ["X-Request-Id: \(id)"])
            case 4:
                return Self.request(route, body: body, extraHeaders: (0..<(number(1_200) + 1)).map { "X-H\($0): v" })
            case 5:
                let name = pick(["Bad Name", "Bad:Name", "\u{0}", "(x)", "X-\u{00e9}", ""])
                return Self.request(route, body: body, extraHeaders: ["\(name): v"])
            case 6:
                return Self.request(route, body: body, extraHeaders: [pick(["Expect: 100-continue", "Expect: nothing", "Connection: Upgrade\r\nUpgrade: h2c",
                                                                            "Connection: close", "Connection: keep-alive, close", "TE: trailers"])])
            case 7:
                return Self.request(route, body: body, extraHeaders: ["Content-Type: text/plain"])
            case 8:
                return Self.request(route, body: body, extraHeaders: ["X-Long: " + String(repeating: "v", count: pick([1_000, 70_000, 90_000]))])
            default:
                return Self.request(route, body: body, method: pick(["GET", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD", "TRACE", "CONNECT", "BREW"]))
            }
        }
    }
}
