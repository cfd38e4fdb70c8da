import Foundation
import ServiceLifecycle

/// Polls the directories a server reloads from (the rule set, the shadow set, the gateway route policies: every
/// entry under them but `tests/`, regular files by name, size and modification time, anything else by name and
/// type) and reloads what changed. Every server process watches the files it serves from, so an edit deployed to all
/// of them reaches all of them within one interval. A reload never blocks on a bad entry (the loaders read regular
/// files only), and adding or removing one changes the fingerprint, so the watcher keeps reloading after it.
package struct ReloadWatchService: Service {
    /// Directories reloaded together, and the reload.
    package struct Watched: Sendable {
        var directories: [String]
        var reload: @Sendable () -> Void
    }

    package let watched: [Watched]
    package var interval: Duration = .seconds(2)

    package init(rules: RuleSetReloader, gatewayPolicies: GatewayPolicyReloader? = nil, interval: Duration = .seconds(2)) {
        var watched = [Watched(directories: [rules.directory, rules.shadow?.directory].compactMap { $0 }) {
            rules.reload(reason: "files changed")
        }]
        if let gatewayPolicies, let directory = gatewayPolicies.directory {
            watched.append(Watched(directories: [directory]) { gatewayPolicies.reload(reason: "files changed") })
        }
        self.watched = watched.filter { !$0.directories.isEmpty }
        self.interval = interval
    }

    package func run() async throws {
        guard !watched.isEmpty else {
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

    /// The fingerprints of each watched group's directories, in order.
    package func fingerprints() -> [[String]] {
        watched.map { $0.directories.flatMap { directory in Self.fingerprint(directory).map { "\(directory)/\($0)" } } }
    }

    /// One poll: reloads each group whose fingerprint differs from `last`; returns the fingerprints now.
    @discardableResult
    package func reloadIfChanged(since last: [[String]]) -> [[String]] {
        let current = fingerprints()
        for (index, group) in watched.enumerated() where index >= last.count || current[index] != last[index] {
            group.reload()
        }
        return current
    }

    /// Names, sizes and modification times of the regular files a rule set is made of, and the names and types of
    /// any other entries.
    package static func fingerprint(_ directory: String) -> [String] {
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
