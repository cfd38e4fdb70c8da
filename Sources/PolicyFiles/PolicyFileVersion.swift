import Crypto
import Foundation

/// The version of a set of policy files (a rule set, a gateway policy): what every server reports, so that an
/// operator sees at a glance whether they all run the same files.
package enum PolicyFileVersion {
    /// `sha256:` and the first 16 hex digits of SHA-256 over each file's name and contents, in name order, so that
    /// the same files give the same version on every server. Names are relative to the set's directory
    /// (``nameInDirectory(_:)``), so that `rules`, `./rules/` and an absolute spelling of one directory agree.
    package static func of(_ files: [(String, String)]) -> String {
        var hash = SHA256()
        for (name, text) in files.sorted(by: { $0.0 < $1.0 }) {
            hash.update(data: Data(name.utf8))
            hash.update(data: Data([0]))
            hash.update(data: Data(text.utf8))
            hash.update(data: Data([0]))
        }
        return "sha256:" + hash.finalize().prefix(8).map { String(format: "%02x", $0) }.joined()
    }

    /// The name of a file read directly in a set's directory, as the version hashes it: its last path component.
    package static func nameInDirectory(_ path: String) -> String {
        (path as NSString).lastPathComponent
    }
}
