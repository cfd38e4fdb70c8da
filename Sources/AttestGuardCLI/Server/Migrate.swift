import ArgumentParser
import AttestGuardRuntime
import Foundation
import Logging
import ServiceLifecycle

/// `attestguard migrate`: applies pending migrations to the configured database and prints the schema version.
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
                let applied = try await store.migrate()
                let version = try await store.schemaVersion()
                print(applied.isEmpty ? "schema is current (version \(version))" : "applied migrations \(applied); schema version \(version)")
                group.cancelAll()
            }
        } catch {
            await store.close()
            FileHandle.standardError.write(Data("migrate failed: \(error)\n".utf8))
            throw ExitCode(1)
        }
        await store.close()
    }
}
