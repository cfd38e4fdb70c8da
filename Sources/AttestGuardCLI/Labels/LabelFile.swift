import AttestGuardServer
import Foundation

/// A fraud team's case export as `attestguard labels import` reads it: CSV with a header row naming the label's
/// fields (``LabelFields/names``, any order, any case; other columns ignored), or JSON lines, one label object a
/// line (blank lines skipped). Each label keeps its line number for the errors.
enum LabelFile {
    /// The two formats.
    enum Format: String, CaseIterable {
        case csv
        case jsonl

        /// The format a file's extension names: `.csv`, or `.jsonl` / `.ndjson` / `.json`.
        init?(path: String) {
            switch (path as NSString).pathExtension.lowercased() {
            case "csv": self = .csv
            case "jsonl", "ndjson", "json": self = .jsonl
            default: return nil
            }
        }
    }

    /// One line that is not a label, with its number (1 is the file's first line).
    struct LineError: Error, CustomStringConvertible {
        var line: Int
        var message: String

        var description: String { "line \(line): \(message)" }
    }

    /// The labels of the text, each with its line number. A byte order mark (spreadsheet exports write one) is
    /// skipped.
    static func parse(_ text: String, format: Format) throws(LineError) -> [(line: Int, fields: LabelFields)] {
        let text = text.hasPrefix("\u{FEFF}") ? String(text.dropFirst()) : text
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { $0.hasSuffix("\r") ? $0.dropLast() : $0 }
        switch format {
        case .csv: return try csv(lines)
        case .jsonl: return try jsonLines(lines)
        }
    }

    private static func jsonLines(_ lines: [Substring]) throws(LineError) -> [(line: Int, fields: LabelFields)] {
        var labels: [(line: Int, fields: LabelFields)] = []
        let decoder = JSONDecoder()
        for (index, line) in lines.enumerated() where !line.allSatisfy(\.isWhitespace) {
            do {
                labels.append((index + 1, try decoder.decode(LabelFields.self, from: Data(line.utf8))))
            } catch {
                throw LineError(line: index + 1, message: "not a JSON object of string fields (appId, requestId|keyId|userId|deviceId, label, source, labelledAt)")
            }
        }
        return labels
    }

    private static func csv(_ lines: [Substring]) throws(LineError) -> [(line: Int, fields: LabelFields)] {
        guard let headerIndex = lines.firstIndex(where: { !$0.allSatisfy(\.isWhitespace) }) else { return [] }
        let header = try cells(lines[headerIndex], line: headerIndex + 1)
        let known = Dictionary(uniqueKeysWithValues: LabelFields.names.map { ($0.lowercased(), $0) })
        let columns = header.map { known[$0.trimmingCharacters(in: .whitespaces).lowercased()] }
        guard columns.contains("label") else {
            throw LineError(line: headerIndex + 1, message: "the header names no label column (fields: \(LabelFields.names.joined(separator: ", ")))")
        }
        var labels: [(line: Int, fields: LabelFields)] = []
        for index in (headerIndex + 1)..<lines.count where !lines[index].allSatisfy(\.isWhitespace) {
            let row = try cells(lines[index], line: index + 1)
            guard row.count == header.count else {
                throw LineError(line: index + 1, message: "\(row.count) cells, the header has \(header.count)")
            }
            var values: [String: String] = [:]
            for (column, cell) in zip(columns, row) {
                guard let column, !cell.isEmpty else { continue }
                values[column] = cell
            }
            labels.append((index + 1, LabelFields(values)))
        }
        return labels
    }

    /// The cells of one CSV line: comma-separated, a cell in double quotes may hold commas and `""` for a quote.
    static func cells(_ line: Substring, line number: Int) throws(LineError) -> [String] {
        var cells: [String] = []
        var cell = ""
        var quoted = false
        var wasQuoted = false
        var characters = line.makeIterator()
        while let character = characters.next() {
            if quoted {
                if character == "\"" {
                    var lookahead = characters
                    if lookahead.next() == "\"" {
                        cell.append("\"")
                        characters = lookahead
                    } else {
                        quoted = false
                    }
                } else {
                    cell.append(character)
                }
            } else if character == "," {
                cells.append(wasQuoted ? cell : cell.trimmingCharacters(in: .whitespaces))
                cell = ""
                wasQuoted = false
            } else if character == "\"", cell.allSatisfy(\.isWhitespace) {
                cell = ""
                quoted = true
                wasQuoted = true
            } else {
                cell.append(character)
            }
        }
        guard !quoted else { throw LineError(line: number, message: "a quoted cell does not end on its line") }
        cells.append(wasQuoted ? cell : cell.trimmingCharacters(in: .whitespaces))
        return cells
    }
}
