import Foundation
import ServiceLifecycle

/// Polls the rule directory and the shadow directory (every entry under them but `tests/`: regular files by name,
/// size and modification time, anything else by name and type) and reloads when anything changed. Every server
/// process watches the files it serves from, so an edit deployed to all of them reaches all of them within one
/// interval. A reload never blocks on a bad entry (the loader reads regular files only), and adding or removing one
/// changes the fingerprint, so the watcher keeps reloading after it.
struct RuleSetWatchService: Service {
    let reloader: RuleSetReloader
    var interval: Duration = .seconds(2)

    func run() async throws {
        let directories = [reloader.directory, reloader.shadow?.directory].compactMap { $0 }
        guard !directories.isEmpty else {
            // Nothing to watch; a service that returns early would stop the whole group.
            try? await gracefulShutdown()
            return
        }
        var last = fingerprints()
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            _ = await cancelWhenGracefulShutdown { try? await Task.sleep(for: interval) }
            last = reloadIfChanged(since: last)
        }
    }

    /// The fingerprints of the watched directories, live first.
    func fingerprints() -> [[String]] {
        [reloader.directory, reloader.shadow?.directory].compactMap { $0 }.map(Self.fingerprint)
    }

    /// One poll: reloads when the fingerprints differ from `last`; returns the fingerprints now.
    @discardableResult
    func reloadIfChanged(since last: [[String]]) -> [[String]] {
        let current = fingerprints()
        if current != last { reloader.reload(reason: "files changed") }
        return current
    }

    /// Names, sizes and modification times of the regular files a rule set is made of, and the names and types of
    /// any other entries.
    static func fingerprint(_ directory: String) -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: directory) else { return [] }
        var entries: [String] = []
        while let path = enumerator.nextObject() as? String {
            if path == "tests" || path.hasPrefix("tests/") { continue }
            let attributes = enumerator.fileAttributes ?? [:]
            guard let type = attributes[.type] as? FileAttributeType, type == .typeRegular else {
                entries.append("\(path)|\((attributes[.type] as? FileAttributeType)?.rawValue ?? "unknown")")
                continue
            }
            let size = (attributes[.size] as? NSNumber)?.int64Value ?? -1
            let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
            entries.append("\(path)|\(size)|\(modified)")
        }
        return entries.sorted()
    }
}
