import AttestGuardRuntime
import Foundation
import Testing

/// `docs/reference/configuration.md` is exactly what `ConfigurationKey.all` prints now, so a key added, renamed or
/// described anew shows there or fails here.
struct ConfigurationReferenceTests {
    static let page = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/reference/configuration.md")

    @Test func pageIsTheCatalog() throws {
        let text = try String(contentsOf: Self.page, encoding: .utf8)
        #expect(text == ConfigurationKey.referenceMarkdown(), "write it again with `attestguard reference configuration > docs/reference/configuration.md`")
    }

    @Test func everyKeyIsOneRowWithItsVariable() {
        let page = ConfigurationKey.referenceMarkdown()
        let rows = page.split(separator: "\n").filter { $0.hasPrefix("| `") }
        #expect(rows.count == ConfigurationKey.all.count)
        for key in ConfigurationKey.all {
            #expect(page.contains("| `\(key.path)` | `\(key.environmentVariable)` |"), "\(key.path)")
        }
        for row in rows {
            // Three cells: a `|` inside a summary is escaped, so every row splits into exactly four bars' worth.
            let bars = row.replacingOccurrences(of: "\\|", with: "").filter { $0 == "|" }.count
            #expect(bars == 4, "\(row)")
        }
    }
}
