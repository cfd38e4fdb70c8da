import AttestGuardWire
import AttestGuardServer
import Foundation

/// A fraud team's case export as `attestguard labels import` reads it: CSV (RFC 4180, as spreadsheets write it) with
/// a header row naming the label's fields (``LabelFields/names``, any order, any case; other columns ignored), or
/// JSON lines, one label object a line (blank lines skipped). Each label keeps its line number for the errors.
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

    /// The labels of the text, each with its line number (the line a CSV record starts on). A byte order mark
    /// (spreadsheet exports write one) is skipped; lines end in LF or CRLF.
    static func parse(_ text: String, format: Format) throws(LineError) -> [(line: Int, fields: LabelFields)] {
        let scalars = Array((text.hasPrefix("\u{FEFF}") ? String(text.dropFirst()) : text).unicodeScalars)
        switch format {
        case .csv:
            let records: [(line: Int, cells: [String])]
            do throws(CSVText.UnclosedQuote) {
                records = try CSVText.records(scalars)
            } catch {
                throw LineError(line: error.line, message: "a quoted cell opened here never ends")
            }
            return try csv(records)
        case .jsonl: return try jsonLines(scalars)
        }
    }

    /// JSON lines, each read with the API's JSON rules (``JSONBody/decodeStrictly(_:from:)``: UTF-8, no `null`, no
    /// key twice, no trailing comma, no unknown member), so that a file and `POST /v1/labels` accept the same objects.
    private static func jsonLines(_ scalars: [Unicode.Scalar]) throws(LineError) -> [(line: Int, fields: LabelFields)] {
        var labels: [(line: Int, fields: LabelFields)] = []
        for (index, line) in scalars.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var text = String(String.UnicodeScalarView(line))
            if text.unicodeScalars.last == "\r" { text.unicodeScalars.removeLast() }
            guard !text.allSatisfy(\.isWhitespace) else { continue }
            do {
                labels.append((index + 1, try JSONBody.decodeStrictly(LabelFields.self, from: Data(text.utf8))))
            } catch let error as APIError {
                throw LineError(line: index + 1, message: "\(error.code): \(error.message)")
            } catch {
                throw LineError(line: index + 1, message: "not a JSON object of string fields (appId, requestId|keyId|userId|deviceId, label, source, labelledAt)")
            }
        }
        return labels
    }

    private static func csv(_ records: [(line: Int, cells: [String])]) throws(LineError) -> [(line: Int, fields: LabelFields)] {
        let records = records.filter { !($0.cells.count == 1 && $0.cells[0].allSatisfy(\.isWhitespace)) }
        guard let header = records.first else { return [] }
        let known = Dictionary(uniqueKeysWithValues: LabelFields.names.map { ($0.lowercased(), $0) })
        let columns = header.cells.map { known[$0.trimmingCharacters(in: .whitespaces).lowercased()] }
        guard columns.contains("label") else {
            throw LineError(line: header.line, message: "the header names no label column (fields: \(LabelFields.names.joined(separator: ", ")))")
        }
        var labels: [(line: Int, fields: LabelFields)] = []
        for record in records.dropFirst() {
            guard record.cells.count == header.cells.count else {
                throw LineError(line: record.line, message: "\(record.cells.count) cells, the header has \(header.cells.count)")
            }
            var values: [String: String] = [:]
            for (column, cell) in zip(columns, record.cells) {
                guard let column, !cell.isEmpty else { continue }
                values[column] = cell
            }
            labels.append((record.line, LabelFields(values)))
        }
        return labels
    }
}
