import Foundation
import RiskRules

/// Where a demo keeps its files: the SQLite store and the rule set (the embedded default set written out, unless
/// `--rules` names another). A temporary folder is removed when the demo ends; a given one is kept.
struct DemoWorkspace {
    let folder: URL
    let rulesDirectory: String
    let isTemporary: Bool

    var sqlitePath: String { folder.appendingPathComponent("attestguard.sqlite").path }

    init(folder: String?, rules: String?) throws {
        if let folder {
            self.folder = URL(fileURLWithPath: folder)
            isTemporary = false
        } else {
            self.folder = FileManager.default.temporaryDirectory.appendingPathComponent("attestguard-demo-\(UUID().uuidString.prefix(8))")
            isTemporary = true
        }
        try FileManager.default.createDirectory(at: self.folder, withIntermediateDirectories: true)
        rulesDirectory = try rules ?? DefaultRuleSet.write(to: self.folder.appendingPathComponent("rules")).path
    }

    func removeIfTemporary() {
        if isTemporary { try? FileManager.default.removeItem(at: folder) }
    }
}
