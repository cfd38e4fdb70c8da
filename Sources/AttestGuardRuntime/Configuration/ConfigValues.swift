package import Configuration
import Foundation
import Synchronization

/// Typed, strict reads over a swift-configuration reader: every value is read as text and parsed here, so that
/// a mistyped value is an error naming its key instead of a silent fallback to the default.
///
/// Each settings type reads its own keys from a scoped ``ConfigValues`` (`init(reading:)`, as Hummingbird's
/// configurations do); every key read is one of ``ConfigurationKey/all``, and a ``Recorder`` given at the root
/// collects the full path of each key read (the tests compare the two).
///
/// Without ``Problems`` the first bad value throws; with them (a ``ConfigurationCheck``) each is collected and its
/// default read instead, so that one pass names every problem.
package struct ConfigValues {
    /// Collects the full dotted path of every key read through the values it was given to.
    package final class Recorder: Sendable {
        private let paths = Mutex<Set<String>>([])

        init() {}

        private let lists = Mutex<Set<String>>([])

        /// The full paths read so far.
        var pathsRead: Set<String> { paths.withLock { $0 } }

        /// The full paths read as lists so far.
        var listPathsRead: Set<String> { lists.withLock { $0 } }

        func record(_ path: String) { _ = paths.withLock { $0.insert(path) } }

        func recordList(_ path: String) { _ = lists.withLock { $0.insert(path) } }
    }

    package let reader: ConfigReader
    /// The dotted prefix of `reader` (for messages).
    package let prefix: String
    package let recorder: Recorder?
    package let problems: Problems?

    package init(_ reader: ConfigReader, prefix: String = "", recorder: Recorder? = nil, problems: Problems? = nil) {
        self.reader = reader
        self.prefix = prefix
        self.recorder = recorder
        self.problems = problems
    }

    package func scoped(_ key: String) -> ConfigValues {
        ConfigValues(reader.scoped(to: ConfigKey(key)), prefix: path(key), recorder: recorder, problems: problems)
    }

    package func path(_ key: String) -> String { prefix.isEmpty ? key : "\(prefix).\(key)" }

    package func string(_ key: String, isSecret: Bool = false) -> String? {
        recorder?.record(path(key))
        return unrecordedString(key, isSecret: isSecret)
    }

    /// A read that is no key of the configuration: an inline secret looked up only to be refused.
    /// A JSON file's numbers and booleans are not strings to swift-configuration: they are read as integers (a
    /// boolean as 0 or 1) or decimals and parsed like text.
    private func unrecordedString(_ key: String, isSecret: Bool = false) -> String? {
        let configKey = ConfigKey(key)
        let text = reader.string(forKey: configKey, isSecret: isSecret)
            ?? reader.int(forKey: configKey, isSecret: isSecret).map { String($0) }
            ?? reader.double(forKey: configKey, isSecret: isSecret).map { String($0) }
        return text.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// A value that must be written as text, such as a version: as a JSON or YAML number, `4.10` would read as 4.1.
    /// A number is reported, never read.
    package func quotedText(_ key: String) throws -> String? {
        recorder?.record(path(key))
        let configKey = ConfigKey(key)
        if let text = reader.string(forKey: configKey) { return text.isEmpty ? nil : text }
        guard reader.int(forKey: configKey) == nil, reader.double(forKey: configKey) == nil else {
            return try report(ConfigurationError(key: path(key), "must be quoted text (\"4.10\"): a number loses its trailing zeros"), instead: nil)
        }
        return nil
    }

    package func string(_ key: String, default value: String) -> String {
        string(key) ?? value
    }

    package func requiredString(_ key: String) throws -> String {
        guard let value = string(key) else { throw ConfigurationError(key: path(key), "is required", code: .missingValue) }
        return value
    }

    package func int(_ key: String, default value: Int, range: ClosedRange<Int>) throws -> Int {
        guard let text = string(key) else { return value }
        guard let parsed = Int(text.trimmingCharacters(in: .whitespaces)), range.contains(parsed) else {
            return try report(ConfigurationError(key: path(key), "must be an integer in \(range.lowerBound)...\(range.upperBound), got \(text)"), instead: value)
        }
        return parsed
    }

    package func bool(_ key: String, default value: Bool) throws -> Bool {
        guard let text = string(key) else { return value }
        switch text.lowercased() {
        case "true", "yes", "1": return true
        case "false", "no", "0": return false
        default: return try report(ConfigurationError(key: path(key), "must be true or false, got \(text)"), instead: value)
        }
    }

    package func stringArray(_ key: String) -> [String] {
        recorder?.record(path(key))
        recorder?.recordList(path(key))
        if let array = reader.stringArray(forKey: ConfigKey(key)) {
            return array.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
        return string(key).map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } } ?? []
    }

    package func choice<Value: RawRepresentable>(_ key: String, default value: Value) throws -> Value where Value.RawValue == String {
        guard let text = string(key) else { return value }
        guard let parsed = Value(rawValue: text) else {
            return try report(ConfigurationError(key: path(key), "unknown value \(text)"), instead: value)
        }
        return parsed
    }

    /// Refuses an inline `<key>`: secrets do not belong in configuration files.
    package func refuseInlineSecret(_ key: String, use alternatives: String) throws {
        if unrecordedString(key, isSecret: true) != nil {
            throw ConfigurationError(key: path(key), "secrets are not accepted inline: use \(alternatives)", code: .inlineSecret)
        }
    }

    /// A secret given by file path (`<key>File`) or by the name of an environment variable (`<key>Env`), never
    /// inline (see ``refuseInlineSecret(_:use:)``).
    package func secret(_ key: String, environment: [String: String]) throws -> String? {
        try refuseInlineSecret(key, use: "\(key)File (a path) or \(key)Env (a variable name)")
        if let file = string(key + "File") {
            guard let contents = FileManager.default.contents(atPath: file), let text = String(data: contents, encoding: .utf8) else {
                throw ConfigurationError(key: path(key + "File"), "cannot read \(file)", code: .unreadableFile)
            }
            let secret = text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !secret.isEmpty else { throw ConfigurationError(key: path(key + "File"), "\(file) is empty", code: .missingSecret) }
            return secret
        }
        if let variable = string(key + "Env") {
            guard let secret = environment[variable], !secret.isEmpty else {
                throw ConfigurationError(key: path(key + "Env"), "environment variable \(variable) is not set", code: .missingSecret)
            }
            return secret
        }
        return nil
    }
}
