import Crypto
import Foundation
@testable import AttestGuardRuntime
@testable import AttestGuardServer
import Testing

/// The console's templates and session tokens, without a server: double braces only, the embedded copy equal to the
/// files, every template parsing, every value escaped; a session token that verifies only unaltered, unexpired and
/// for the key it names.
@Suite("Console: templates and session tokens")
struct ConsoleTemplateTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Console")

    static func templateFiles() throws -> [URL] {
        try FileManager.default.contentsOfDirectory(at: folder.appendingPathComponent("templates"), includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "mustache" }.sorted { $0.path < $1.path }
    }

    @Test("templates use double braces only: no {{{ and no {{&, so every value is escaped")
    func doubleBracesOnly() throws {
        let files = try Self.templateFiles()
        #expect(files.count >= 10)
        for file in files {
            let text = try String(contentsOf: file, encoding: .utf8)
            #expect(!text.contains("{{{"), "\(file.lastPathComponent) has a triple brace")
            #expect(!text.contains("{{&"), "\(file.lastPathComponent) has an unescaped variable")
            #expect(!text.contains("<script"), "\(file.lastPathComponent) has a script")
            #expect(!text.contains("style="), "\(file.lastPathComponent) has an inline style, which the CSP refuses")
        }
        for text in EmbeddedConsole.templates.values {
            #expect(!text.contains("{{{") && !text.contains("{{&"))
        }
    }

    @Test("the embedded templates and stylesheet are the files' (embedded at build time by the EmbedResources plugin)")
    func embeddedCopy() throws {
        let files = try Self.templateFiles()
        #expect(Set(files.map { $0.deletingPathExtension().lastPathComponent }) == Set(EmbeddedConsole.templates.keys))
        for file in files {
            let text = try String(contentsOf: file, encoding: .utf8)
            #expect(EmbeddedConsole.templates[file.deletingPathExtension().lastPathComponent] == text.trimmingCharacters(in: .newlines))
        }
        let css = try String(contentsOf: Self.folder.appendingPathComponent("console.css"), encoding: .utf8)
        #expect(EmbeddedConsole.stylesheet == css.trimmingCharacters(in: .newlines))
    }

    @Test("every template parses, and a value with markup is drawn as text")
    func escaping() throws {
        let templates = try ConsoleTemplates()
        let view = LoginPage(minutes: 5, problem: LoginPage.Problem(code: "x\"><script>alert(1)</script>", message: "<img src=x onerror=alert(1)>"))
        let html = templates.html("login", view)
        #expect(html.contains("&lt;img src=x onerror=alert(1)&gt;"))
        #expect(html.contains("x&quot;&gt;&lt;script&gt;"))
        #expect(!html.contains("<script") && !html.contains("<img"))
    }

    @Test("a session token verifies unaltered, before its expiry, for the key whose secret it was made with")
    func sessionTokens() {
        let key = SymmetricKey(size: .bits256)
        let digest = Data(SHA256.hash(data: Data("the-key's-secret".utf8)))
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let session = ConsoleSession(keyName: "fraud-team", expiresAt: now.addingTimeInterval(3_600))
        let token = session.token(key: key, keySecretDigest: digest)
        #expect(!token.contains("the-key's-secret"))
        #expect(ConsoleSession.verify(token, key: key, now: now) { $0 == "fraud-team" ? digest : nil } == session)
        #expect(ConsoleSession.verify(token, key: key, now: now.addingTimeInterval(3_600)) { _ in digest } == nil, "expired")
        #expect(ConsoleSession.verify(token, key: SymmetricKey(size: .bits256), now: now) { _ in digest } == nil, "another server's key")
        #expect(ConsoleSession.verify(token, key: key, now: now) { _ in Data(SHA256.hash(data: Data("rotated".utf8))) } == nil, "the key's secret changed")
        #expect(ConsoleSession.verify(token, key: key, now: now) { _ in nil } == nil, "the key is no longer configured")
        var parts = token.split(separator: ".").map(String.init)
        parts[2] = String(Int(parts[2])! + 1)
        #expect(ConsoleSession.verify(parts.joined(separator: "."), key: key, now: now) { _ in digest } == nil, "a later expiry")
        for garbage in ["", "v1", "v1...", "v2.\(parts[1]).1.x", String(repeating: "a", count: 600)] {
            #expect(ConsoleSession.verify(garbage, key: key, now: now) { _ in digest } == nil)
        }
    }

    @Test("a bar chart's bars stay inside its plot, stacked or side by side")
    func barGeometry() {
        let columns = (0..<24).map { index in
            BarChart.Column(label: "\(index)", segments: [(series: "allow", value: Double(index)), (series: "deny", value: Double(24 - index))])
        }
        for stacked in [true, false] {
            let chart = BarChart(caption: "test", columns: columns, stacked: stacked, legend: [])
            #expect(!chart.bars.isEmpty)
            for bar in chart.bars {
                #expect(bar.x >= chart.left && bar.x + bar.width <= chart.right + 1)
                #expect(bar.y >= chart.top - 1 && bar.y + bar.height <= chart.baseline + 1)
            }
        }
    }
}
