import Foundation
import RiskRules

/// Where a demo keeps its files: the SQLite store and the rule set (the embedded default set written out, unless
/// `--rules` names another). A temporary folder is removed when the demo ends; a given one is kept, and so is a rule
/// set already in it (edited after an earlier `--keep-serving`, say).
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
        let kept = self.folder.appendingPathComponent("rules")
        if let rules {
            rulesDirectory = rules
        } else if FileManager.default.fileExists(atPath: kept.path) {
            rulesDirectory = kept.path
        } else {
            rulesDirectory = try DefaultRuleSet.write(to: kept).path
        }
    }

    func removeIfTemporary() {
        if isTemporary { try? FileManager.default.removeItem(at: folder) }
    }
}
