import Foundation

/// CSV as RFC 4180 has it and spreadsheets write it, for the files analysts export (fraud labels, list entries):
/// read once here for the CLI and the API alike.
public enum CSVText {
    /// A quoted cell that never ends: the line it opens on.
    public struct UnclosedQuote: Error, Sendable {
        public var line: Int
    }

    /// The records of `text`, each with the line it starts on; a byte order mark (spreadsheet exports write one) is
    /// skipped.
    public static func records(_ text: String) throws(UnclosedQuote) -> [(line: Int, cells: [String])] {
        try records(Array((text.hasPrefix("\u{FEFF}") ? String(text.dropFirst()) : text).unicodeScalars))
    }

    /// The records of CSV text as RFC 4180 reads them, each with the line it starts on: cells separated by commas,
    /// records by LF or CRLF; a cell in double quotes may hold commas, line breaks and `""` for a quote. An unquoted
    /// cell loses the spaces and tabs around it, nothing else (a no-break space is part of a value).
    public static func records(_ scalars: [Unicode.Scalar]) throws(UnclosedQuote) -> [(line: Int, cells: [String])] {
        var records: [(line: Int, cells: [String])] = []
        var cells: [String] = []
        var cell = String.UnicodeScalarView()
        var quoted = false
        var wasQuoted = false
        var line = 1
        var recordLine = 1
        var quoteOpenedOn = 1
        func endCell() {
            let text = String(cell)
            cells.append(wasQuoted ? text : text.trimmingCharacters(in: CharacterSet(charactersIn: " \t")))
            cell = String.UnicodeScalarView()
            wasQuoted = false
        }
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            index += 1
            if quoted {
                if scalar == "\"" {
                    if index < scalars.count, scalars[index] == "\"" {
                        cell.append("\"")
                        index += 1
                    } else {
                        quoted = false
                    }
                } else {
                    if scalar == "\n" { line += 1 }
                    cell.append(scalar)
                }
            } else if scalar == "," {
                endCell()
            } else if scalar == "\r", index < scalars.count, scalars[index] == "\n" {
                continue  // the LF ends the record
            } else if scalar == "\n" {
                endCell()
                records.append((recordLine, cells))
                cells = []
                line += 1
                recordLine = line
            } else if scalar == "\"", String(cell).allSatisfy({ $0 == " " || $0 == "\t" }) {
                cell = String.UnicodeScalarView()
                quoted = true
                wasQuoted = true
                quoteOpenedOn = line
            } else {
                cell.append(scalar)
            }
        }
        guard !quoted else { throw UnclosedQuote(line: quoteOpenedOn) }
        if !cells.isEmpty || !cell.isEmpty || wasQuoted {
            endCell()
            records.append((recordLine, cells))
        }
        return records
    }
}
