@testable import AttestGuardEngine
import Testing

@Suite("Input limits: client IP addresses")
struct ClientIPTests {
    @Test("every spelling of an address has one canonical text (RFC 5952; IPv4-mapped is IPv4)", arguments: [
        ("192.0.2.1", "192.0.2.1"),
        ("::ffff:192.0.2.1", "192.0.2.1"),
        ("::FFFF:C000:0201", "192.0.2.1"),
        ("2001:DB8:0:0:0:0:0:1", "2001:db8::1"),
        ("2001:0db8::0001", "2001:db8::1"),
        ("2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"),
        ("2001:db8:0:1:1:1:1:1", "2001:db8:0:1:1:1:1:1"),
        ("2001:0:0:1:0:0:0:1", "2001:0:0:1::1"),
        ("0:0:0:0:0:0:0:0", "::"),
        ("0:0:0:0:0:0:0:1", "::1"),
        ("fe80:0:0:0:0:0:0:0", "fe80::"),
    ])
    func canonical(_ text: String, expected: String) throws {
        #expect(try ClientIP(text, field: "ip").text == expected)
    }

    @Test("anything but an address is invalid_field", arguments: [
        "", " 192.0.2.1", "192.0.2.1 ", "192.0.2", "256.0.0.1", "01.2.3.4", "fe80::1%eth0", "2001:db8::1::2",
        "2001:db8:0:0:0:0:0:0:1", "localhost", "192.0.2.1/24", String(repeating: "1", count: 60),
    ])
    func rejected(_ text: String) {
        #expect {
            _ = try ClientIP(text, field: "ip")
        } throws: { error in
            (error as? EngineError)?.code == .invalidField
        }
    }

    @Test("IPv6 clients count per network; IPv4 clients per address")
    func velocitySubjects() throws {
        let v6 = try ClientIP("2001:db8:1:2:aaaa:bbbb:cccc:dddd", field: "ip")
        #expect(v6.velocitySubject(ipv6PrefixLength: 64) == "2001:db8:1:2::/64")
        #expect(v6.velocitySubject(ipv6PrefixLength: 48) == "2001:db8:1::/48")
        #expect(v6.velocitySubject(ipv6PrefixLength: 56) == "2001:db8:1::/56")
        #expect(v6.velocitySubject(ipv6PrefixLength: 128) == v6.text)
        let v4 = try ClientIP("203.0.113.9", field: "ip")
        #expect(v4.velocitySubject(ipv6PrefixLength: 64) == "203.0.113.9")
        let keying = VelocityKeying.publicTestKey
        let neighbour = try ClientIP("2001:db8:1:2::1", field: "ip")
        #expect(keying.hash(VelocitySubjects(ip: v6)).ip == keying.hash(VelocitySubjects(ip: neighbour)).ip)
        let perAddress = VelocityKeying(secret: Array("attestguard-public-test-velocity-key".utf8), ipv6PrefixLength: 128)
        #expect(perAddress.hash(VelocitySubjects(ip: v6)).ip != perAddress.hash(VelocitySubjects(ip: neighbour)).ip)
    }
}
