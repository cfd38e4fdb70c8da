import Foundation
import Testing

/// Each reader's guide under `docs/` starts with a walkthrough whose commands the suite runs as written
/// (``DocumentCommands``, markers `<!-- guide: ... -->`), from a folder holding what a checkout has, so that a guide
/// that stops working fails here.
@Suite("guides' walkthroughs")
struct GuideCommandTests {
    /// The guides with a walkthrough, and the checkout folders each one uses.
    static let walkthroughs: [(page: String, copies: [String])] = [
        ("docs/analysts.md", ["Rules"]),
        ("docs/gateways.md", ["Gateway"]),
        ("docs/operators.md", ["Rules"]),
        ("docs/receipts.md", []),
    ]

    /// Every guide of the documentation map: pages whose `sh` blocks must all be marked.
    static let guides = ["docs/analysts.md", "docs/api.md", "docs/demo.md", "docs/gateways.md", "docs/ios.md", "docs/operators.md", "docs/receipts.md", "docs/runbooks.md", "docs/scaling.md", "CONTRIBUTING.md"]

    @Test("every sh block of every guide is marked, and each walkthrough has commands to run", arguments: guides)
    func blocksAreMarked(page: String) throws {
        let commands = try DocumentCommands(DocumentCommands.page(page), markerName: "guide")
        for block in commands.unmarked { Issue.record("an sh block of \(page) has no <!-- guide: ... --> marker:\n\(block.text)") }
        if Self.walkthroughs.contains(where: { $0.page == page }) {
            #expect(commands.blocks.contains { $0.marker == .run }, "\(page) has no walkthrough commands")
        }
    }

    @Test("analysts: moving the farm line turns a device with 8 keys from allow to review, and the new case passes")
    func analysts() async throws {
        let (result, _) = try await run("docs/analysts.md")
        let output = result.standardOutput
        #expect(result.status == 0, "\(output)\n\(result.standardError)")
        #expect(output.contains("score 20 -> allow"), "before the edit: \(output)")
        #expect(output.contains("FIRED    key-farm (+60)"), "after the edit: \(output)")
        #expect(output.contains("score 60 -> review"), "\(output)")
        #expect(output.contains(" passed, 0 failed"), "\(output)")
        #expect(output.contains("PASS a device with 8 keys in 30 days is a farm"), "\(output)")
    }

    @Test("gateways: the policy checks, a promotion claim without an assertion is 401, a catalog read passes")
    func gateways() async throws {
        let (result, logs) = try await run("docs/gateways.md")
        let output = result.standardOutput
        #expect(result.status == 0, "\(output)\n\(result.standardError)\n\(logs)")
        #expect(output.contains("app ABCDE12345.com.example.attestguard: require, action claim_promo"), "\(output)")
        #expect(output.contains("X-AttestGuard-Error: assertion_missing"), "\(output)")
        #expect(output.contains("HTTP/1.1 200"), "\(output)")
    }

    @Test("operators: the file checks, migrate creates the schema, the probes answer on the operator listener")
    func operators() async throws {
        let (result, logs) = try await run("docs/operators.md", environment: ["ATTESTGUARD_OPERATOR_PORT": "0"])
        let output = result.standardOutput
        #expect(result.status == 0, "\(output)\n\(result.standardError)\n\(logs)")
        #expect(output.contains("attestguard.yaml: OK"), "\(output)")
        #expect(output.contains("created the schema (version "), "\(output)")
        #expect(output.contains(#""mode":"simulator""#), "/readyz: \(output)")
        #expect(output.contains(#"attestguard_mode{mode="simulator"} 1"#), "\(output)")
        #expect(output.contains(#""attestationRequiredPercent""#), "the admin policy read: \(output)")
    }

    @Test("receipts: an attested key's receipt is redeemed with the fake Apple and carries its risk metric")
    func receipts() async throws {
        let (result, logs) = try await run("docs/receipts.md")
        let output = result.standardOutput
        #expect(result.status == 0, "\(output)\n\(result.standardError)\n\(logs)")
        #expect(output.contains(#""riskMetric":3"#), "\(output)\n\(logs)")
        #expect(output.contains(#""redeemed":1"#), "\(output)")
    }

    private func run(_ page: String, environment: [String: String] = [:]) async throws -> (result: CommandLineRunner.Result, logs: String) {
        let copies = try #require(Self.walkthroughs.first { $0.page == page }).copies
        return try await DocumentCommands(DocumentCommands.page(page), markerName: "guide").run(copying: copies, environment: environment)
    }
}
