import Foundation
import ServiceLifecycle

/// Polls the rule directory and the shadow directory (every file under them but `tests/`, by name, size and
/// modification time) and reloads when anything changed. Every server process watches the files it serves from,
/// so an edit deployed to all of them reaches all of them within one interval.
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
        var last = directories.map(Self.fingerprint)
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            _ = await cancelWhenGracefulShutdown { try? await Task.sleep(for: interval) }
            let current = directories.map(Self.fingerprint)
            if current != last {
                last = current
                reloader.reload(reason: "files changed")
            }
        }
    }

    /// Names, sizes and modification times of the files a rule set is made of.
    static func fingerprint(_ directory: String) -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: directory) else { return [] }
        var entries: [String] = []
        while let path = enumerator.nextObject() as? String {
            if path == "tests" || path.hasPrefix("tests/") { continue }
            let attributes = enumerator.fileAttributes ?? [:]
            guard attributes[.type] as? FileAttributeType == .typeRegular else { continue }
            let size = (attributes[.size] as? NSNumber)?.int64Value ?? -1
            let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
            entries.append("\(path)|\(size)|\(modified)")
        }
        return entries.sorted()
    }
}
