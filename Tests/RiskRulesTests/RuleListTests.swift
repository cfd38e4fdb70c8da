import AttestTestSupport
import AttestVocabulary
import Foundation
@testable import RiskRules
import Testing

/// Lists a rule reads: entries in their one stored form, CIDR blocks matched by prefix (checked against a plain
/// bit-by-bit reference), expiry, and run-time lists looked up in the evaluation's snapshot.
@Suite("Rule lists: CIDR blocks, expiry and run-time lists")
struct RuleListTests {
    @Test("an address or block takes one canonical form; anything else is refused", arguments: [
        ("203.0.113.7", "203.0.113.7"), ("203.0.113.7/24", "203.0.113.0/24"), ("203.0.113.7/32", "203.0.113.7"), ("0.0.0.0/0", "0.0.0.0/0"),
        ("2001:DB8:0:0::1", "2001:db8::1"), ("2001:db8::1/32", "2001:db8::/32"), ("::/0", "::/0"), ("::ffff:198.51.100.9", "198.51.100.9"),
        ("fe80::1/128", "fe80::1"), (" 10.1.2.3/8 ", "10.0.0.0/8"),
    ])
    func canonical(written: String, stored: String) {
        #expect(ListEntryText.normalise(written, kind: .cidr) == .success(stored))
    }

    @Test("not an address or block", arguments: [
        "", "256.1.1.1", "1.2.3", "1.2.3.4/33", "1.2.3.4/", "1.2.3.4/-1", "1.2.3.4/ 8", "01.2.3.4", "::1/129", "fe80::1%eth0", "example.com",
        "1.2.3.4/24/1", "1.2.3.4/٢", "2001:db8:::1", String(repeating: "1", count: 300),
    ])
    func refused(written: String) {
        guard case .failure = ListEntryText.normalise(written, kind: .cidr) else {
            Issue.record("\(written) was accepted")
            return
        }
    }

    @Test("string entries are trimmed, bounded and free of control characters")
    func strings() {
        #expect(ListEntryText.normalise("  user-1 \t", kind: .string) == .success("user-1"))
        #expect(ListEntryText.normalise("Ünïcode ok", kind: .string) == .success("Ünïcode ok"))
        for bad in ["", "   ", "a\u{0}b", "line\nbreak", String(repeating: "x", count: 257)] {
            guard case .failure = ListEntryText.normalise(bad, kind: .string) else {
                Issue.record("\(bad.debugDescription) was accepted")
                continue
            }
        }
    }

    @Test("a CIDR list answers as a scan of every block would, for random blocks and addresses")
    func cidrAgainstReference() {
        var random = SplitMix64(seed: 43)
        for _ in 0..<40 {
            var blocks: [(bytes: [UInt8], prefix: Int, text: String)] = []
            for _ in 0..<Int.random(in: 1...30, using: &random) {
                let v4 = Bool.random(using: &random)
                let base = Self.randomAddress(v4: v4, near: blocks.randomElement(using: &random)?.bytes, using: &random)
                let length = Int.random(in: 0...(v4 ? 32 : 128), using: &random)
                let text = "\(Self.text(base, v4: v4))/\(length)"
                guard case .success(let stored) = ListEntryText.normalise(text, kind: .cidr) else {
                    Issue.record("\(text) refused")
                    return
                }
                blocks.append((Self.mapped(base, v4: v4), v4 ? length + 96 : length, stored))
            }
            let contents = ListContents(kind: .cidr, entries: blocks.map { ListContents.Entry(value: $0.text) })
            for _ in 0..<200 {
                let v4 = Bool.random(using: &random)
                let address = Self.randomAddress(v4: v4, near: blocks.randomElement(using: &random)?.bytes, using: &random)
                let bytes = Self.mapped(address, v4: v4)
                // An IPv4 client (IPv4-mapped) is only in blocks inside the mapped range.
                let mapped = Array(bytes.prefix(12)) == [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF]
                let expected = blocks.contains { (!mapped || $0.prefix >= 96) && Self.samePrefix(bytes, $0.bytes, bits: $0.prefix) }
                #expect(contents.contains(Self.text(address, v4: v4), at: 0) == expected, "\(Self.text(address, v4: v4)) in \(blocks.map(\.text))")
            }
        }
    }

    @Test("an IPv4 block matches the IPv4-mapped form of its addresses; text that is no address is in no block")
    func mappedAndMalformed() {
        let contents = ListContents(kind: .cidr, entries: [ListContents.Entry(value: "203.0.113.0/24"), ListContents.Entry(value: "2001:db8::/32")])
        #expect(contents.contains("203.0.113.200", at: 0))
        #expect(contents.contains("::ffff:203.0.113.200", at: 0))
        #expect(!contents.contains("203.0.114.1", at: 0))
        #expect(contents.contains("2001:db8:ffff::1", at: 0))
        #expect(!contents.contains("2001:db9::1", at: 0))
        #expect(!contents.contains("not an address", at: 0) && !contents.contains("", at: 0))
    }

    @Test("an IPv6 block shorter than the IPv4-mapped range takes no IPv4 client; the mapped range itself takes them all")
    func ipv6BlocksAndIPv4Clients() {
        let everyIPv6 = ListContents(kind: .cidr, entries: [ListContents.Entry(value: "::/0")])
        #expect(everyIPv6.contains("2001:db8::1", at: 0))
        #expect(!everyIPv6.contains("203.0.113.9", at: 0) && !everyIPv6.contains("::ffff:203.0.113.9", at: 0))
        #expect(ListEntryText.normalise("::ffff:0:0/96", kind: .cidr) == .success("0.0.0.0/0"))
        #expect(ListEntryText.normalise("::ffff:1.2.3.0/120", kind: .cidr) == .success("1.2.3.0/24"))
        let everyIPv4 = ListContents(kind: .cidr, entries: [ListContents.Entry(value: "0.0.0.0/0")])
        #expect(everyIPv4.contains("203.0.113.9", at: 0) && !everyIPv4.contains("2001:db8::1", at: 0))
    }

    @Test("an entry matches until its expiry; of one value given twice the later expiry counts")
    func expiry() {
        let contents = ListContents(kind: .string, entries: [
            ListContents.Entry(value: "u1", expiresAt: 100), ListContents.Entry(value: "u2"),
            ListContents.Entry(value: "u3", expiresAt: 50), ListContents.Entry(value: "u3", expiresAt: 150),
        ])
        #expect(contents.contains("u1", at: 99) && !contents.contains("u1", at: 100))
        #expect(contents.contains("u2", at: 1e12))
        #expect(contents.contains("u3", at: 149) && !contents.contains("u3", at: 150))
        let blocks = ListContents(kind: .cidr, entries: [ListContents.Entry(value: "10.0.0.0/8", expiresAt: 10), ListContents.Entry(value: "10.1.0.0/16")])
        #expect(blocks.contains("10.1.2.3", at: 20), "a longer, live block matches when the shorter one has expired")
        #expect(!blocks.contains("10.2.0.1", at: 20))
    }

    static let managedRules = """
        version: 1
        lists:
          blocked_ips: { managed: true, kind: cidr }
          vip_users: { managed: true }
          office: { file: lists/office.txt, kind: cidr }
        rules:
          - id: blocked
            when: request.ip in list("blocked_ips")
            decide: deny
            reason: "{request.ip} is in {list(\\"blocked_ips\\")}"
          - id: vip
            when: request.user_id in list("vip_users") and request.ip not in list("office")
            score: -10
        """

    @Test("a run-time list is read from the evaluation's snapshot, declared kind and all")
    func managedLists() throws {
        let set = try ruleSet(Self.managedRules, lists: ["lists/office.txt": "# the office\n192.0.2.0/24\n2001:db8:1::/48\n"])
        #expect(set.managedLists == ["blocked_ips": .cidr, "vip_users": .string])
        func decide(_ ip: String, user: String = "u", lists: ManagedListSnapshot) -> RuleEvaluation {
            let values = set.values(now: 1_000, lists: lists)
            values.set("request.ip", .string(ip))
            values.set("request.user_id", .string(user))
            return set.evaluate(values)
        }
        #expect(decide("203.0.113.9", lists: .empty).decision == .allow, "a list the snapshot lacks matches nothing")
        let snapshot = ManagedListSnapshot(lists: [
            "blocked_ips": ListContents(kind: .cidr, entries: [ListContents.Entry(value: "203.0.113.0/24", expiresAt: 2_000)]),
            "vip_users": ListContents(kind: .string, entries: [ListContents.Entry(value: "alice")]),
        ])
        let blocked = decide("203.0.113.9", lists: snapshot)
        #expect(blocked.decision == .deny && blocked.fired.map(\.id) == ["blocked"])
        #expect(blocked.fired.first?.reason == "203.0.113.9 is in list(\"blocked_ips\")")
        #expect(decide("alice-ip", user: "alice", lists: snapshot).fired.map(\.id) == ["vip"])
        #expect(decide("192.0.2.5", user: "alice", lists: snapshot).fired.isEmpty, "the office file list is a CIDR list")
        let wrongKind = ManagedListSnapshot(lists: ["blocked_ips": ListContents(kind: .string, entries: [ListContents.Entry(value: "203.0.113.9")])])
        #expect(decide("203.0.113.9", lists: wrongKind).decision == .allow, "a stored list of another kind than declared matches nothing")
    }

    @Test("a managed list's declaration is part of the set's version, its entries are not")
    func version() throws {
        let plain = try ruleSet("version: 1\nrules: []\n")
        let managed = try ruleSet("version: 1\nlists: { a: { managed: true } }\nrules: []\n")
        let cidr = try ruleSet("version: 1\nlists: { a: { managed: true, kind: cidr } }\nrules: []\n")
        #expect(Set([plain.version, managed.version, cidr.version]).count == 3)
    }

    @Test("declarations that cannot be read are problems at their line", arguments: [
        ("{ managed: true, file: x.txt }", "either a file or managed"),
        ("{ kind: cidr }", "needs `file: path` or `managed: true`"),
        ("{ managed: yes please }", "`managed` is true or false"),
        ("{ managed: true, kind: ipv4 }", "unknown list kind"),
        ("{ managed: true, knid: cidr }", "unknown list field `knid`"),
        ("{ file: lists/bad.txt, kind: cidr }", "line 2: \"not-an-ip\" is not an IPv4 or IPv6 address"),
    ])
    func badDeclarations(declaration: String, message: String) {
        let errors = loadErrors("version: 1\nlists:\n  a: \(declaration)\nrules: []\n", lists: ["lists/bad.txt": "10.0.0.0/8\nnot-an-ip\n"])
        #expect(errors.count == 1 && errors.first?.line == 3, "\(errors)")
        #expect(errors.first?.message.contains(message) == true, "\(errors.first?.message ?? "none")")
    }

    @Test("a test case gives run-time lists their entries; a list the rules do not declare is a problem of the case")
    func testCases() throws {
        let set = try ruleSet(Self.managedRules, lists: ["lists/office.txt": "192.0.2.0/24\n"])
        var report = RuleTestCases.Report()
        RuleTestCases.run(set, file: "tests/lists.yaml", text: """
            cases:
              - name: a blocked range is denied
                signals: { request.ip: 203.0.113.9 }
                lists: { blocked_ips: [203.0.113.7/24] }
                expect: { decision: deny, fired: [blocked] }
              - name: without the entry it is allowed
                signals: { request.ip: 203.0.113.9 }
                expect: { decision: allow, fired: [] }
            """, into: &report)
        #expect(report.errors.isEmpty && report.results.allSatisfy(\.passed), "\(report.errors) \(report.results.map(\.failures))")
        for (lists, problem) in [("{ nope: [x] }", "declare no run-time list"), ("{ blocked_ips: [bogus] }", "not an IPv4"), ("{ blocked_ips: x }", "are a list")] {
            var bad = RuleTestCases.Report()
            RuleTestCases.run(set, file: "tests/bad.yaml", text: """
                cases:
                  - name: bad
                    signals: {}
                    lists: \(lists)
                    expect: { decision: allow }
                """, into: &bad)
            #expect(bad.errors.count == 1 && bad.errors.first?.message.contains(problem) == true, "\(bad.errors)")
        }
        var misspelt = RuleTestCases.Report()
        RuleTestCases.run(set, file: "tests/bad.yaml", text: "cases:\n  - name: x\n    signals: {}\n    list: {}\n    expect: { decision: allow }\n", into: &misspelt)
        #expect(misspelt.errors.first?.message.contains("unknown case field `list`") == true)
    }

    // MARK: Reference

    static func randomAddress(v4: Bool, near: [UInt8]?, using random: inout SplitMix64) -> [UInt8] {
        let count = v4 ? 4 : 16
        var bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) }
        // Half the time, share a random-length prefix with a block, so that matches are common.
        if let near, Bool.random(using: &random) {
            let source = v4 ? Array(near.suffix(4)) : near
            if !v4 || near.prefix(12) == [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF] {
                let keep = Int.random(in: 0...count, using: &random)
                for index in 0..<keep { bytes[index] = source[index] }
            }
        }
        return bytes
    }

    static func mapped(_ bytes: [UInt8], v4: Bool) -> [UInt8] {
        v4 ? [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF] + bytes : bytes
    }

    static func text(_ bytes: [UInt8], v4: Bool) -> String {
        if v4 { return bytes.map(String.init).joined(separator: ".") }
        return stride(from: 0, to: 16, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }.joined(separator: ":")
    }

    static func samePrefix(_ a: [UInt8], _ b: [UInt8], bits: Int) -> Bool {
        for bit in 0..<bits {
            let mask = UInt8(0x80) >> UInt8(bit % 8)
            if a[bit / 8] & mask != b[bit / 8] & mask { return false }
        }
        return true
    }
}
