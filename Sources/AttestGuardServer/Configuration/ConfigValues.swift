import Configuration
import Foundation

/// Typed, strict reads over a swift-configuration reader: every value is read as text and parsed here, so that
/// a mistyped value is an error naming its key instead of a silent fallback to the default.
struct ConfigValues {
    let reader: ConfigReader
    /// The dotted prefix of `reader` (for messages).
    let prefix: String

    init(_ reader: ConfigReader, prefix: String = "") {
        self.reader = reader
        self.prefix = prefix
    }

    func scoped(_ key: String) -> ConfigValues {
        ConfigValues(reader.scoped(to: ConfigKey(key)), prefix: path(key))
    }

    func path(_ key: String) -> String { prefix.isEmpty ? key : "\(prefix).\(key)" }

    func string(_ key: String, isSecret: Bool = false) -> String? {
        reader.string(forKey: ConfigKey(key), isSecret: isSecret).flatMap { $0.isEmpty ? nil : $0 }
    }

    func string(_ key: String, default value: String) -> String {
        string(key) ?? value
    }

    func requiredString(_ key: String) throws -> String {
        guard let value = string(key) else { throw ConfigurationError(key: path(key), "is required") }
        return value
    }

    func int(_ key: String, default value: Int, range: ClosedRange<Int>) throws -> Int {
        guard let text = string(key) else { return value }
        guard let parsed = Int(text.trimmingCharacters(in: .whitespaces)), range.contains(parsed) else {
            throw ConfigurationError(key: path(key), "must be an integer in \(range.lowerBound)...\(range.upperBound), got \(text)")
        }
        return parsed
    }

    func bool(_ key: String, default value: Bool) throws -> Bool {
        guard let text = string(key) else { return value }
        switch text.lowercased() {
        case "true", "yes", "1": return true
        case "false", "no", "0": return false
        default: throw ConfigurationError(key: path(key), "must be true or false, got \(text)")
        }
    }

    func stringArray(_ key: String) -> [String] {
        if let array = reader.stringArray(forKey: ConfigKey(key)) {
            return array.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
        return string(key).map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } } ?? []
    }

    func choice<Value: RawRepresentable>(_ key: String, default value: Value) throws -> Value where Value.RawValue == String {
        guard let text = string(key) else { return value }
        guard let parsed = Value(rawValue: text) else {
            throw ConfigurationError(key: path(key), "unknown value \(text)")
        }
        return parsed
    }

    /// A secret given by file path (`<key>File`) or by the name of an environment variable (`<key>Env`), never
    /// inline: secrets do not belong in configuration files.
    func secret(_ key: String, environment: [String: String]) throws -> String? {
        if string(key) != nil {
            throw ConfigurationError(key: path(key), "secrets are not accepted inline: use \(key)File (a path) or \(key)Env (a variable name)")
        }
        if let file = string(key + "File") {
            guard let contents = FileManager.default.contents(atPath: file), let text = String(data: contents, encoding: .utf8) else {
                throw ConfigurationError(key: path(key + "File"), "cannot read \(file)")
            }
            let secret = text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !secret.isEmpty else { throw ConfigurationError(key: path(key + "File"), "\(file) is empty") }
            return secret
        }
        if let variable = string(key + "Env") {
            guard let secret = environment[variable], !secret.isEmpty else {
                throw ConfigurationError(key: path(key + "Env"), "environment variable \(variable) is not set")
            }
            return secret
        }
        return nil
    }
}
