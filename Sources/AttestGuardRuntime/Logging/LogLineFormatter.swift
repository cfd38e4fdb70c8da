package import Foundation
package import Logging
import AttestGuardWire

/// Renders one log record as one line of logfmt or JSON (``LogFormat``): `ts`, `level`, `msg` and `source` first,
/// then the metadata by key. Never more than one line (newlines and control characters are escaped) and never
/// unbounded: a value longer than ``maximumValueBytes`` is cut and says how much was left out, and fields that would
/// take the line past ``maximumLineBytes`` are left out and counted in `truncated_fields`.
package struct LogLineFormatter: Sendable {
    package static let maximumValueBytes = 1_024
    package static let maximumLineBytes = 16_384
    /// The fields every line starts with; a metadata key of the same name gets a `_` appended.
    package static let fixedKeys: Set<String> = ["ts", "level", "msg", "source", "truncated_fields"]

    package var format: LogFormat

    package func line(time: Date, level: Logger.Level, message: String, source: String, metadata: Logger.Metadata) -> String {
        var line = format == .json ? "{" : ""
        line.reserveCapacity(256)
        var fields = 0
        func add(_ key: String, _ value: String) {
            if fields > 0 { line.append(format == .json ? "," : " ") }
            fields += 1
            switch format {
            case .json:
                Self.appendJSONString(key, to: &line)
                line.append(":")
                Self.appendJSONString(value, to: &line)
            case .text:
                Self.appendLogfmtKey(key, to: &line)
                line.append("=")
                Self.appendLogfmtValue(value, to: &line)
            }
        }
        add("ts", RFC3339.format(time))
        add("level", level.rawValue)
        add("msg", Self.bounded(message))
        add("source", Self.bounded(source))
        var left = 0
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) {
            let name = Self.fixedKeys.contains(key) ? key + "_" : key
            let text = Self.bounded(Self.flatten(value))
            guard line.utf8.count + name.utf8.count + text.utf8.count + 8 <= Self.maximumLineBytes else {
                left += 1
                continue
            }
            add(name, text)
        }
        if left > 0 { add("truncated_fields", String(left)) }
        if format == .json { line.append("}") }
        return line
    }

    /// A metadata value as one string: nested lists and dictionaries as their JSON text.
    package static func flatten(_ value: Logger.MetadataValue) -> String {
        switch value {
        case .string(let text): text
        case .stringConvertible(let convertible): convertible.description
        case .array, .dictionary:
            {
                var json = ""
                appendJSON(value, to: &json)
                return json
            }()
        }
    }

    private static func appendJSON(_ value: Logger.MetadataValue, to json: inout String) {
        switch value {
        case .string(let text): appendJSONString(text, to: &json)
        case .stringConvertible(let convertible): appendJSONString(convertible.description, to: &json)
        case .array(let values):
            json.append("[")
            for (index, element) in values.enumerated() {
                if index > 0 { json.append(",") }
                appendJSON(element, to: &json)
            }
            json.append("]")
        case .dictionary(let entries):
            json.append("{")
            for (index, entry) in entries.sorted(by: { $0.key < $1.key }).enumerated() {
                if index > 0 { json.append(",") }
                appendJSONString(entry.key, to: &json)
                json.append(":")
                appendJSON(entry.value, to: &json)
            }
            json.append("}")
        }
    }

    /// `text` cut to ``maximumValueBytes`` of UTF-8 at a character boundary, saying how many bytes were left out.
    package static func bounded(_ text: String) -> String {
        let length = text.utf8.count
        guard length > maximumValueBytes else { return text }
        var kept = 0
        var end = text.startIndex
        for index in text.unicodeScalars.indices {
            let size = text.unicodeScalars[index].utf8.count
            if kept + size > maximumValueBytes { break }
            kept += size
            end = text.unicodeScalars.index(after: index)
        }
        return String(text.unicodeScalars[..<end]) + "…[\(length - kept) more bytes]"
    }

    package static func appendJSONString(_ text: String, to line: inout String) {
        line.append("\"")
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": line.append("\\\"")
            case "\\": line.append("\\\\")
            case "\n": line.append("\\n")
            case "\r": line.append("\\r")
            case "\t": line.append("\\t")
            case _ where scalar.value < 0x20 || scalar.value == 0x7F || scalar == "\u{2028}" || scalar == "\u{2029}":
                line.append(unicodeEscape(scalar))
            default: line.unicodeScalars.append(scalar)
            }
        }
        line.append("\"")
    }

    /// A key as logfmt allows it unquoted: letters, digits and `_ . - : /`; anything else becomes `_`.
    package static func appendLogfmtKey(_ key: String, to line: inout String) {
        guard !key.isEmpty else { return line.append("_") }
        for scalar in key.unicodeScalars {
            switch scalar {
            case "a"..."z", "A"..."Z", "0"..."9", "_", ".", "-", ":", "/": line.unicodeScalars.append(scalar)
            default: line.append("_")
            }
        }
    }

    /// A value bare when it is printable ASCII without space, `=` or `"`; else quoted with `\"`, `\\`, `\n`, `\r`,
    /// `\t` and `\u00XX` escapes (non-ASCII text stays UTF-8 inside the quotes).
    package static func appendLogfmtValue(_ value: String, to line: inout String) {
        let bare = !value.isEmpty && value.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value < 0x7F && $0 != "=" && $0 != "\"" }
        guard !bare else { return line.append(value) }
        appendJSONString(value, to: &line)
    }

    private static func unicodeEscape(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16)
        return "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}
