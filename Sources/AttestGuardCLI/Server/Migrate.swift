import ArgumentParser
import AttestGuardRuntime
import Foundation
import Logging
import ServiceLifecycle

/// `attestguard migrate`: applies pending migrations to the configured database and says what it did: created the
/// schema in a new database, applied some migrations, or found the schema current.
struct Migrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Apply pending database migrations.")

    @OptionGroup var options: ConfigurationOption

    func run() async throws {
        let configuration = try await options.load()
        var logger = Logger(label: "attestguard.migrate")
        logger.logLevel = .warning
        let store = try await OpenedStore.open(configuration.database.coldPool, clock: { Date() }, logger: logger)
        let services = store.services
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for service in services { group.addTask { try await service.run() } }
                let applied = store.migratedAtOpening + (try await store.migrate())
                let version = try await store.schemaVersion()
                print(Self.report(applied: applied, version: version, location: configuration.database.location))
                group.cancelAll()
            }
        } catch {
            await store.close()
            FileHandle.standardError.write(Data("migrate failed: \(error)\n".utf8))
            throw ExitCode(1)
        }
        await store.close()
    }

    /// The line `migrate` prints. A database whose first migration is applied now had no schema before.
    static func report(applied: [Int], version: Int, location: String) -> String {
        if applied.isEmpty { return "schema is current (version \(version)) in \(location)" }
        if applied.contains(1) { return "created the schema (version \(version), \(applied.count) migrations) in \(location)" }
        return "applied migrations \(applied.map(String.init).joined(separator: ", ")); schema version \(version) in \(location)"
    }
}
