import Foundation

/// Splits a migration file into statements at top-level semicolons, skipping `--` and `/* */` comments and
/// respecting single-quoted strings, double-quoted identifiers and dollar-quoted bodies.
package enum SQLScript {
    package static func statements(in script: String) -> [String] {
        var statements: [String] = []
        var current = ""
        var index = script.startIndex
        func flush() {
            let trimmed = current.trimmingCharacters(in: .whitespacesAndNewlines)
            if !trimmed.isEmpty { statements.append(trimmed) }
            current = ""
        }
        while index < script.endIndex {
            let rest = script[index...]
            if rest.hasPrefix("--") {
                index = rest.firstIndex(of: "\n") ?? script.endIndex
                continue
            }
            if rest.hasPrefix("/*") {
                let end = rest.range(of: "*/")?.upperBound ?? script.endIndex
                index = end
                continue
            }
            let character = script[index]
            if character == "'" || character == "\"" {
                let closing = script[script.index(after: index)...].firstIndex(of: character) ?? script.index(before: script.endIndex)
                current += script[index...closing]
                index = script.index(after: closing)
                continue
            }
            if character == "$", let tagEnd = rest.dropFirst().firstIndex(of: "$"),
                rest[rest.index(after: rest.startIndex)..<tagEnd].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" })
            {
                let tag = String(rest[rest.startIndex...tagEnd])
                let bodyStart = script.index(after: tagEnd)
                let end = script[bodyStart...].range(of: tag)?.upperBound ?? script.endIndex
                current += script[index..<end]
                index = end
                continue
            }
            if character == ";" {
                flush()
            } else {
                current.append(character)
            }
            index = script.index(after: index)
        }
        flush()
        return statements
    }
}
