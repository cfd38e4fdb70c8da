import Foundation
import Yams

/// The keys a configuration file writes, as the dotted paths swift-configuration reads them under (which it cannot
/// list): each value and each list, in the file's order (JSON: sorted), a null value left out.
///
/// ```yaml
/// server: { port: 8080 }      # server.port, a value
/// apps: { names: [shop] }     # apps.names, a list
/// apple:                      # nothing: a null value is no key
/// ```
package struct ConfigurationFileKeys {
    /// One key the file writes.
    package struct Key: Hashable {
        /// The dotted path.
        var path: String
        /// Whether its value is a list (`[a, b]`) rather than one value.
        var isList: Bool
    }

    package var keys: [Key]

    /// Reads the keys of a YAML (`.yaml`, `.yml`) or JSON (`.json`) file.
    /// - Throws: When the file cannot be read or parsed (the loader has reported that already).
    package init(file: String) throws {
        let text = try String(contentsOfFile: file, encoding: .utf8)
        var keys: [Key] = []
        if file.hasSuffix(".json") {
            let root = try JSONSerialization.jsonObject(with: Data(text.utf8))
            Self.collect(json: root, path: [], into: &keys)
        } else if let root = try Yams.compose(yaml: text) {
            Self.collect(yaml: root, path: [], into: &keys)
        }
        self.keys = keys
    }

    private static func collect(yaml node: Node, path: [String], into keys: inout [Key]) {
        if let mapping = node.mapping {
            for (key, value) in mapping { collect(yaml: value, path: path + [key.string ?? ""], into: &keys) }
        } else if node.sequence != nil {
            keys.append(Key(path: path.joined(separator: "."), isList: true))
        } else if node.null == nil, !path.isEmpty {
            keys.append(Key(path: path.joined(separator: "."), isList: false))
        }
    }

    private static func collect(json value: Any, path: [String], into keys: inout [Key]) {
        if let object = value as? [String: Any] {
            for key in object.keys.sorted() { collect(json: object[key] as Any, path: path + [key], into: &keys) }
        } else if value is [Any] {
            keys.append(Key(path: path.joined(separator: "."), isList: true))
        } else if !(value is NSNull), !path.isEmpty {
            keys.append(Key(path: path.joined(separator: "."), isList: false))
        }
    }
}
