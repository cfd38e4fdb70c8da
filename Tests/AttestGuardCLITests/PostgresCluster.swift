import Foundation

/// A PostgreSQL cluster of a test's own, beside the shared one: started by scripts/postgres-start.sh (or added as a
/// streaming standby by scripts/postgres-standby.sh), driven with Debian's own tools (`psql`, `pg_ctl`), and killed
/// the way a host dies.
struct PostgresCluster: Sendable {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The cluster's folder (data, socket, log, and the files the scripts write: pgbin, port, url).
    let state: String
    let url: String
    let port: Int

    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Runs PostgreSQL's tools as the `postgres` user when the tests run as root (PostgreSQL refuses root).
    private static let asPostgres = #"as_pg() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }; "#

    /// A new cluster with the `durable` profile (fsync, synchronous_commit and full_page_writes on) or `fast`, and
    /// more server `options` (`-c name=value ...`).
    static func start(profile: String, options: String = "") async throws -> PostgresCluster {
        try await launch("scripts/postgres-start.sh", environment: ["ATTESTGUARD_PG_PROFILE": profile, "ATTESTGUARD_PG_OPTIONS": options])
    }

    /// A streaming standby of this cluster (hot: it answers reads), with more server `options`.
    func addStandby(options: String = "") async throws -> PostgresCluster {
        try await Self.launch("scripts/postgres-standby.sh '\(state)'", environment: ["ATTESTGUARD_PG_OPTIONS": options])
    }

    /// Closes every descriptor the shell inherited beyond 0-2 before it starts a server that outlives it.
    /// swift-corelibs-foundation's `Process` learns that its child exited when a descriptor it hands the child
    /// reaches end of file; a daemon that keeps it (pg_ctl does not close what it inherits) would keep
    /// `waitUntilExit()` waiting for as long as the server runs.
    private static let closeInherited = #"for fd in /proc/$$/fd/*; do n=${fd##*/}; [ "$n" -gt 2 ] && eval "exec $n>&-" 2>/dev/null; done; "#

    private static func launch(_ command: String, environment: [String: String]) async throws -> PostgresCluster {
        let stateFile = FileManager.default.temporaryDirectory.appendingPathComponent("attestguard-pgstate-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: stateFile) }
        var variables = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        variables["ATTESTGUARD_PG_STATE_FILE"] = stateFile
        let result = try await CommandLineRunner.runShell(closeInherited + command, in: repository, environment: variables)
        guard result.status == 0, let state = try? String(contentsOfFile: stateFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        else {
            throw Failure(description: "\(command) failed (\(result.status)): \(result.standardError)")
        }
        let port = try String(contentsOfFile: state + "/port", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        return PostgresCluster(state: state, url: result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines), port: Int(port) ?? 0)
    }

    /// Runs `sql` with psql and returns its unaligned, tuples-only output.
    @discardableResult
    func sql(_ sql: String) async throws -> String {
        let quoted = "'" + sql.replacingOccurrences(of: "'", with: "'\\''") + "'"
        return try await shell(#"as_pg "$(cat pgbin)/psql" -X -v ON_ERROR_STOP=1 -At -d "$(cat url)" -c "# + quoted)
    }

    /// Kills the postmaster and every backend with SIGKILL at once: the host is gone, nothing is flushed or closed.
    func kill() async throws {
        // The children are read from /proc (procps may be missing), before the postmaster dies and they are reparented;
        // cat goes on past a process that exits meanwhile (mawk would stop at it).
        try await shell(#"""
            pid=$(head -1 data/postmaster.pid)
            children=$(cat /proc/[0-9]*/stat 2>/dev/null | awk -v p="$pid" '$4 == p { print $1 }')
            kill -9 "$pid" $children
            """#)
    }

    /// Stops (SIGSTOP) or resumes (SIGCONT) the postmaster and every backend: a host that hangs without closing a
    /// connection, such as a standby whose confirmations stop.
    func freeze(_ frozen: Bool) async throws {
        try await shell("""
            pid=$(head -1 data/postmaster.pid)
            children=$(cat /proc/[0-9]*/stat 2>/dev/null | awk -v p="$pid" '$4 == p { print $1 }')
            kill -\(frozen ? "STOP" : "CONT") "$pid" $children
            """)
    }

    /// Starts a killed cluster again, with the command line it last ran with (`data/postmaster.opts`): crash recovery,
    /// and a standby reconnects to its primary.
    func restart() async throws {
        try await shell(Self.closeInherited + #"as_pg "$(cat pgbin)/pg_ctl" -D data -l data/server.log -w -t 60 restart >/dev/null"#)
    }

    /// Promotes a standby and waits until it takes writes.
    func promote() async throws {
        try await shell(#"as_pg "$(cat pgbin)/pg_ctl" -D data -w -t 60 promote"#)
    }

    /// Stops the cluster (if it still runs) and deletes its folder.
    func stop() async {
        _ = try? await CommandLineRunner.runShell("scripts/postgres-stop.sh '\(state)'", in: Self.repository, environment: ProcessInfo.processInfo.environment)
    }

    @discardableResult
    private func shell(_ script: String) async throws -> String {
        let result = try await CommandLineRunner.runShell(Self.asPostgres + script, in: URL(fileURLWithPath: state), environment: ProcessInfo.processInfo.environment)
        guard result.status == 0 else { throw Failure(description: "\(script) failed (\(result.status)): \(result.standardError)") }
        return result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Polls `condition` every 100 ms until it holds, or throws once `limit` has passed.
    static func waitUntil(_ what: String, within limit: Duration = .seconds(60), _ condition: () async throws -> Bool) async throws {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if try await condition() { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw Failure(description: "timed out waiting until \(what)")
    }
}
