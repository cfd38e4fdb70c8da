import Foundation
import AttestGuardStore

/// SQLite URI filenames (`file:…?mode=ro`), which sqlite-nio opens as given because it passes `SQLITE_OPEN_URI`:
/// the path is made absolute and percent-encoded, so `?`, `#` and `%` in it stay part of the name.
enum SQLiteFileURI {
    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~/")

    /// The URI that opens `path` read-only: a missing file is an error instead of a new database, and no
    /// statement can write. Under WAL the connection still reads the `-wal` file and takes its read locks in the
    /// `-shm` file, as every reader does; it never checkpoints. Not `immutable=1`: the server changes the file.
    static func readOnly(path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        let encoded = absolute.addingPercentEncoding(withAllowedCharacters: unreserved) ?? absolute
        return "file://\(encoded)?mode=ro"
    }
}
