import Foundation
import RiskRules
import Testing

/// The binary's copy of the default rule set is `Rules/` exactly, and written out it loads as a set.
struct DefaultRuleSetTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test("the embedded files are Rules/, file for file (embedded at build time by the EmbedResources plugin)")
    func embeddedCopyIsRules() throws {
        let rules = Self.repository.appendingPathComponent("Rules")
        let enumerator = try #require(FileManager.default.enumerator(at: rules, includingPropertiesForKeys: [.isRegularFileKey]))
        var onDisk: [String: String] = [:]
        for case let url as URL in enumerator where try url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile == true {
            let relative = String(url.standardizedFileURL.path.dropFirst(rules.standardizedFileURL.path.count + 1))
            onDisk[relative] = try String(contentsOf: url, encoding: .utf8).trimmingCharacters(in: .newlines)
        }
        let embedded = Dictionary(uniqueKeysWithValues: DefaultRuleSet.files.map { ($0.path, $0.text) })
        #expect(Set(embedded.keys) == Set(onDisk.keys), "the build embeds Rules/ (EmbedResources plugin): a stale build folder?")
        for (path, text) in onDisk {
            #expect(embedded[path] == text, "Rules/\(path) differs from the embedded copy: a stale build folder?")
        }
    }

    @Test("written to a folder outside the repository, the set loads with every rule")
    func writtenSetLoads() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("default-rules-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try DefaultRuleSet.write(to: folder)
        let written = try RuleSetLoader.load(directory: folder.path)
        let original = try RuleSetLoader.load(directory: Self.repository.appendingPathComponent("Rules").path)
        #expect(written.rules.map(\.id) == original.rules.map(\.id))
        #expect(written.rules.count > 10)
    }
}
