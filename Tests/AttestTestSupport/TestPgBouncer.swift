public import Foundation
import Logging
import PostgresNIO
import AttestGuardStore
import AttestGuardPostgres
#if canImport(Glibc)
import Glibc
#endif

/// A PgBouncer in transaction mode (Debian's `pgbouncer`, which scripts/test.sh installs) in front of the test
/// PostgreSQL (``TestPostgres``), started once per test process on first use and stopped when the process ends.
///
/// Roles are kept apart: PgBouncer authenticates any role the server knows through `auth_query` (as the
/// administrator, with `auth_type = trust` like the test server) and logs in to PostgreSQL as that role, so that a
/// store of ``freshRoleURL()`` works in its role's schema without a `search_path` parameter, which PgBouncer does not
/// carry; a test store's fresh database selects its schema itself. Its server connections are capped
/// (``serverConnections`` for the roles, as many for the administrator's databases) well below the test server's 2,000,
/// which the direct tests share.
public struct TestPgBouncer: Sendable {
    /// The port PgBouncer listens on (loopback).
    public let port: Int
    /// Its folder: configuration, auth file and log (`pgbouncer.log`).
    public let directory: URL
    /// The test server's administrator, PgBouncer's `auth_user` and the user of its admin console.
    let administrator: String

    /// Where Debian installs it.
    static let binary = "/usr/sbin/pgbouncer"

    /// Whether PgBouncer tests run here: the PostgreSQL tests run and PgBouncer is installed, or CI demands them
    /// (and fails without it).
    public static var isEnabled: Bool {
        TestPostgres.isEnabled && (FileManager.default.isExecutableFile(atPath: binary) || ProcessInfo.processInfo.environment["CI"] == "true")
    }

    /// Server connections per pool and in all: a test's store multiplexes its pool onto `poolPerRole` (PgBouncer pools
    /// by database and user: a fresh role in the server's database, or the administrator in a fresh database), and the
    /// tests' pools stay within two budgets of `serverConnections` each (`max_db_connections` bounds the roles in the
    /// server's database, `max_user_connections` the administrator across the fresh databases). Idle ones close
    /// after 2 s, so that the pools of finished tests leave room for the next ones. The total is above `poolPerRole`
    /// times the pools busy at once: at the total, PgBouncer gives a new pool a connection only when another's goes
    /// idle, and pools racing 64 clients never go idle, so a 60-connection total starved a test's first query past its
    /// 30 s deadline.
    static let poolPerRole = 4
    static let serverConnections = 240

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The process's PgBouncer, started on first use.
    public static func shared() async throws -> TestPgBouncer {
        try await started.value
    }

    private static let started = Task { try await start() }

    /// A new role owning a schema of its name (``TestPostgres/freshRoleURL(prefix:)``) and a URL that reaches it
    /// through PgBouncer: no `search_path`, the role's default (`"$user", public`) finds the schema.
    public func freshRoleURL(prefix: String = "b") async throws -> (url: String, role: String) {
        let fresh = try await freshRole(prefix: prefix)
        return (fresh.url, fresh.role)
    }

    /// ``freshRoleURL(prefix:)`` with the role's direct URL to PostgreSQL beside it (its schema in `search_path`).
    public func freshRole(prefix: String = "b") async throws -> (url: String, direct: String, role: String) {
        let (direct, role) = try await TestPostgres.freshRoleURL(prefix: prefix)
        return (try throughBouncer(direct), direct, role)
    }

    /// The last `lines` lines of PgBouncer's log (its failed server logins, with what PostgreSQL answered), for a
    /// test's failure message.
    public func logTail(lines: Int = 30) -> String {
        let log = (try? String(contentsOf: directory.appendingPathComponent("pgbouncer.log"), encoding: .utf8)) ?? "(no log)"
        return log.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines).joined(separator: "\n")
    }

    /// PgBouncer's own view of `database`'s pools and of the administrator's server connections in all, from its
    /// admin console (`SHOW POOLS` and `SHOW DATABASES`, through Debian's `psql`), for a test's failure message. A
    /// pool whose server logins fail and one that cannot open a server connection because the administrator is at
    /// `max_user_connections` answer a client alike (08P01 server_login_retry), and only the first is in the log.
    public func consoleState(database: String) async -> String {
        let psql = Process()
        psql.executableURL = URL(fileURLWithPath: "/usr/bin/psql")
        psql.arguments = [
            "-X", "-A", "-F", "|", "-h", "127.0.0.1", "-p", String(port), "-U", administrator, "-d", "pgbouncer",
            "-c", "SHOW POOLS", "-c", "SHOW DATABASES",
        ]
        psql.environment = ["PGCONNECT_TIMEOUT": "5", "PATH": "/usr/bin:/bin"]
        let output = Pipe()
        psql.standardOutput = output
        psql.standardError = output
        psql.standardInput = FileHandle.nullDevice
        do {
            try await psql.runWhenDescriptorsAllowAsync()
        } catch {
            return "(psql did not start: \(error))"
        }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        psql.waitUntilExit()
        return Self.summary(ofConsole: text, database: database, administrator: administrator)
    }

    /// The lines of `console` (psql's unaligned `SHOW POOLS` and `SHOW DATABASES`) that name `database`, each under
    /// its header, and the administrator's server connections summed over its pools (PgBouncer keeps them to
    /// ``serverConnections`` but for the connections it opens for cancel requests).
    static func summary(ofConsole console: String, database: String, administrator: String) -> String {
        var kept: [String] = []
        var header: [Substring] = []
        var administratorsConnections = 0
        for line in console.split(separator: "\n") {
            let fields = line.split(separator: "|", omittingEmptySubsequences: false)
            if fields.first == "database" || fields.first == "name" {
                header = fields
                kept.append(String(line))
                continue
            }
            if fields.first.map(String.init) == database { kept.append(String(line)) }
            guard header.first == "database", fields.count == header.count, fields.dropFirst().first.map(String.init) == administrator else {
                if header.isEmpty { kept.append(String(line)) }  // psql's own error
                continue
            }
            for (name, value) in zip(header, fields) where name.hasPrefix("sv_") {
                administratorsConnections += Int(value) ?? 0
            }
        }
        kept.append("the administrator's server connections over all its pools: \(administratorsConnections) (max_user_connections \(serverConnections))")
        return kept.joined(separator: "\n")
    }

    /// A URL through PgBouncer to a new database holding this build's schema (``TestPostgres/freshMigratedURL(prefix:)``).
    /// PgBouncer passes no `search_path`, so the database selects its schema for every session itself.
    public func freshMigratedURL(prefix: String = "b") async throws -> String {
        let direct = try await TestPostgres.freshMigratedURL(prefix: prefix)
        guard let database = URLComponents(string: direct)?.path.dropFirst() else { throw TestPostgres.Missing() }
        _ = try await TestPostgres.administer("ALTER DATABASE \(database) SET search_path = \(MigratedTemplate.schema)")
        return try throughBouncer(direct)
    }

    /// `direct` (a URL to the test server) pointed at PgBouncer instead, without its `search_path`, which PgBouncer
    /// does not carry.
    private func throughBouncer(_ direct: String) throws -> String {
        guard var components = URLComponents(string: direct) else { throw TestPostgres.Missing() }
        components.host = "127.0.0.1"
        components.port = port
        components.queryItems = components.queryItems?.filter { $0.name != "search_path" }
        return components.string ?? direct
    }

    private static func start() async throws -> TestPgBouncer {
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw Failure(description: "\(binary) is missing: install Debian's pgbouncer (scripts/test.sh does)")
        }
        guard let server = URLComponents(string: try TestPostgres.requiredURL()), let host = server.host, let administrator = server.user else {
            throw TestPostgres.Missing()
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("attestguard-pgbouncer-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let port = try LoopbackPort.free()
        let configuration = """
            [databases]
            * = host=\(host) port=\(server.port ?? 5432)

            [pgbouncer]
            listen_addr = 127.0.0.1
            listen_port = \(port)
            unix_socket_dir =
            pool_mode = transaction
            auth_type = trust
            auth_file = \(directory.path)/userlist.txt
            auth_user = \(administrator)
            auth_query = SELECT usename, passwd FROM pg_catalog.pg_shadow WHERE usename = $1
            admin_users = \(administrator)
            max_client_conn = 4000
            default_pool_size = \(poolPerRole)
            max_db_connections = \(serverConnections)
            max_user_connections = \(serverConnections)
            server_idle_timeout = 2
            server_login_retry = 1
            log_connections = 0
            log_disconnections = 0
            """
        try configuration.write(to: directory.appendingPathComponent("pgbouncer.ini"), atomically: true, encoding: .utf8)
        try "\"\(administrator)\" \"\"\n".write(to: directory.appendingPathComponent("userlist.txt"), atomically: true, encoding: .utf8)
        for file in ["pgbouncer.ini", "userlist.txt"] {
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: directory.appendingPathComponent(file).path)
        }

        // PgBouncer refuses to run as root: as root it runs as `postgres`, like the test server. Its descriptor limit
        // is raised in its own shell, since runuser's PAM session sets the soft limit back to 1024. The outer shell
        // stays as its watchdog: when this test process ends, however it ends, it stops PgBouncer and removes the folder.
        let runAs = getuid() == 0 ? "runuser -u postgres -- " : ""
        let script = """
            \(runAs)/bin/sh -c 'ulimit -Sn 8192 2>/dev/null || ulimit -Sn "$(ulimit -Hn)"; exec "$0" "$1"' \(binary) "$1/pgbouncer.ini" \
                2>"$1/pgbouncer.log" &
            bouncer=$!
            while kill -0 "$2" 2>/dev/null && kill -0 "$bouncer" 2>/dev/null; do sleep 1; done
            kill "$bouncer" 2>/dev/null; wait "$bouncer"
            rm -rf "$1"
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script, "pgbouncer-watchdog", directory.path, String(ProcessInfo.processInfo.processIdentifier)]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try await process.runWhenDescriptorsAllowAsync()

        let bouncer = TestPgBouncer(port: port, directory: directory, administrator: administrator)
        try await bouncer.waitUntilAnswering(as: administrator, process: process)
        return bouncer
    }

    /// Waits (60 s at most: the suite starts beside it, and its first login waits for a server connection to run the
    /// auth query) until PgBouncer answers a query; throws with its log when it exits or never answers.
    private func waitUntilAnswering(as administrator: String, process: Process) async throws {
        var logger = Logger(label: "attestguard.tests.pgbouncer")
        logger.logLevel = .critical
        var configuration = try PostgresStoreConfiguration(
            url: "postgres://\(administrator)@127.0.0.1:\(port)/postgres?sslmode=disable", maximumConnections: 1, operationTimeout: TestPostgres.operationTimeout
        )
        configuration.pooler = .transaction
        let deadline = ContinuousClock.now + .seconds(60)
        while true {
            let probe = PostgresRiskStore(configuration: configuration, logger: logger)
            let runner = Task { try await probe.run() }
            defer { runner.cancel() }
            do {
                _ = try await probe.client().query("SELECT 1", logger: logger).collect()
                return
            } catch {
                let log = (try? String(contentsOf: directory.appendingPathComponent("pgbouncer.log"), encoding: .utf8)) ?? ""
                guard process.isRunning, ContinuousClock.now < deadline else {
                    throw Failure(description: "PgBouncer on port \(port) does not answer (\(error)); its log:\n\(log)")
                }
            }
            try await Task.sleep(for: .milliseconds(100))
        }
    }
}
