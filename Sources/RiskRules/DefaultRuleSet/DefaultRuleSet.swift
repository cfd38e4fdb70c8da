public import Foundation

/// The default rule set shipped in `Rules/`, carried in the binary (``files``, embedded at build
/// time by the EmbedResources plugin) so that `attestguard demo` works outside the repository.
public enum DefaultRuleSet {
    /// One file of the set: its path relative to the set's directory, and its text.
    public struct File: Sendable {
        public let path: String
        public let text: String
    }

    /// Writes the set into `directory` (created if needed; files of the same name are replaced) and returns it.
    @discardableResult
    public static func write(to directory: URL) throws -> URL {
        for file in files {
            let destination = directory.appendingPathComponent(file.path)
            try FileManager.default.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data((file.text + "\n").utf8).write(to: destination, options: .atomic)
        }
        return directory
    }
}
