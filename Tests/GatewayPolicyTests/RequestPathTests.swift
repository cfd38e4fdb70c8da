import AttestTestSupport
import GatewayPolicy
import Testing

/// Every spelling of one path a gateway passes on reaches the same normalised form, so that no variant of a
/// required path escapes its route; reserved escapes stay escaped.
struct RequestPathTests {
    @Test("bypass spellings of /api/promos/claim all normalise to it", arguments: [
        "/api/promos/claim", "//api/promos/claim", "/api//promos///claim", "/api/promos/claim/", "/api/./promos/claim",
        "/api/x/../promos/claim", "/API/Promos/CLAIM", "/ap%69/promos/cl%61im", "/api/promos/%63%6C%61%69%6D",
        "/api/%2e/promos/claim", "/api/x/%2E%2E/promos/claim", "/api/promos/claim?again=1", "/api/promos/claim#frag",
        "/../api/promos/claim", "https://shop.example/api/promos/claim",
    ])
    func bypassSpellings(_ target: String) {
        #expect(RequestPath(requestTarget: target).normalized == "/api/promos/claim")
    }

    @Test("reserved escapes stay escaped, with upper-case hex; the root and the empty target are /")
    func reservedAndRoot() {
        #expect(RequestPath(requestTarget: "/files/a%2fb").normalized == "/files/a%2Fb")
        #expect(RequestPath(requestTarget: "/files/a%2Fb").segments == ["files", "a%2Fb"])
        #expect(RequestPath(requestTarget: "/a%20b").normalized == "/a%20b")
        #expect(RequestPath(requestTarget: "/").normalized == "/")
        #expect(RequestPath(requestTarget: "").normalized == "/")
        #expect(RequestPath(requestTarget: "/..").normalized == "/")
        #expect(RequestPath(requestTarget: "/%zz/%4").normalized == "/%25zz/%254", "a % that starts no escape is escaped")
        #expect(RequestPath(requestTarget: "/%%41%41").normalized == "/%25aa", "decoding never completes an escape")
    }

    @Test("patterns: literal segments, * for one segment, a final ** for the path and all below it")
    func patterns() throws {
        let exact = try #require(PathPattern("/api/Orders"))
        #expect(exact.matches(RequestPath(requestTarget: "/api/orders/")))
        #expect(!exact.matches(RequestPath(requestTarget: "/api/orders/1")))
        let one = try #require(PathPattern("/api/orders/*/cancel"))
        #expect(one.matches(RequestPath(requestTarget: "/api/orders/17/cancel")))
        #expect(!one.matches(RequestPath(requestTarget: "/api/orders/cancel")))
        let below = try #require(PathPattern("/api/catalog/**"))
        #expect(below.matches(RequestPath(requestTarget: "/api/catalog")))
        #expect(below.matches(RequestPath(requestTarget: "/api/catalog/shoes/1")))
        #expect(!below.matches(RequestPath(requestTarget: "/api/catalogue")))
        for invalid in ["api/orders", "/api/**/x", "/api/orders?x=1", "/api/../x"] {
            #expect(PathPattern(invalid) == nil, "\(invalid)")
        }
    }
}

/// Seeded random targets from the characters that matter (slashes, dots, escapes, letters of both cases): the
/// normalised form is always a canonical path, and normalising it again changes nothing.
struct RequestPathPropertyTests {
    static let pieces = ["/", "/", ".", "..", "%2e", "%2E", "%2f", "%2F", "%41", "%7e", "%", "%g1", "a", "B", "~", "?", "#", "x y", "é"]

    @Test("10,000 seeded targets: canonical and idempotent")
    func canonicalAndIdempotent() {
        var generator = SplitMix64(seed: 0x5eed_a77e_57)
        for _ in 0..<10_000 {
            let target = (0..<Int.random(in: 0...12, using: &generator)).map { _ in Self.pieces.randomElement(using: &generator)! }.joined()
            let path = RequestPath(requestTarget: target).normalized
            #expect(path.hasPrefix("/"), "\(target)")
            #expect(!path.contains("//") && !path.contains("?") && !path.contains("#"), "\(target) -> \(path)")
            #expect(!path.split(separator: "/").contains { $0 == "." || $0 == ".." }, "\(target) -> \(path)")
            #expect(path == "/" || !path.hasSuffix("/"), "\(target) -> \(path)")
            #expect(RequestPath(requestTarget: path).normalized == path, "\(target) -> \(path)")
        }
    }
}
