import ArgumentParser
import AttestGuardEngine
import AttestGuardRuntime
import AttestGuardStore
import Foundation
import Logging
import RiskRules

/// The store, opened for the analysts' read commands (`keys history`, `decisions`) as `rules backtest` opens it: a
/// cold pool on PostgreSQL; on SQLite the file read-only, beside a server that holds it (no lock, no migration, no
/// write). The commands write nothing, and a schema other than this build's is refused. This is the one place they open the store. Exit codes: 2 for a request the configuration
/// makes invalid (an unknown app, a bad range), 1 for a key that is not registered (or another missing thing, or a
/// conflict with what is stored), 3 when the store cannot be used.
enum HistoryStoreSession {
    /// Runs `body` with a ``HistoryService`` over the configured store and closes the store after it.
    static func run<Result: Sendable>(
        command: String, configuration: ServerConfiguration, _ body: @escaping @Sendable (HistoryService) async throws -> Result
    ) async throws -> Result {
        var logger = Logger(label: "attestguard")
        logger.logLevel = .warning
        let clock = SystemClock()
        let ruleSets = Self.ruleSets(configuration, clock: clock, logger: logger, command: command)
        return try await reading(command: command, configuration: configuration) { store in
            try await body(HistoryService(
                store: store, apps: AppCatalog(configuration.apps), keying: configuration.engine.velocityKeying, clock: clock,
                ruleSets: { ruleSets }
            ))
        }
    }

    /// Runs `body` with the configured store, opened for reading, and closes the store after it; the other read
    /// commands (`receipts baseline`) use it directly. With `writing`, the store is opened as `labels import` opens
    /// it, for the few commands that write a row or two (`debug-tokens`): on SQLite a server holding the file must
    /// be stopped.
    static func reading<Result: Sendable>(
        command: String, configuration: ServerConfiguration, writing: Bool = false, _ body: @escaping @Sendable (any RiskStore) async throws -> Result
    ) async throws -> Result {
        var logger = Logger(label: "attestguard")
        logger.logLevel = .warning
        let clock = SystemClock()
        let store: OpenedStore
        do {
            store = writing
                ? try await OpenedStore.open(configuration.database.coldPool, clock: { clock.now() }, logger: logger)
                : try await OpenedStore.openForReading(configuration.database.coldPool, clock: { clock.now() }, logger: logger)
        } catch {
            fail(command, "cannot open the store: \(error)", code: 3)
        }
        let services = store.services
        let outcome: Swift.Result<Result, any Error> = await {
            do {
                return .success(try await withThrowingTaskGroup(of: Result?.self) { group in
                    for service in services { group.addTask { try await service.run(); return nil } }
                    do {
                        _ = try await store.schemaVersion()
                    } catch {
                        throw StoreUnusable(error: error)
                    }
                    let result = try await body(store.store)
                    group.cancelAll()
                    return result
                })
            } catch {
                return .failure(error)
            }
        }()
        await store.close()
        switch outcome {
        case .success(let result):
            return result
        case .failure(let error as EngineError):
            switch error.kind {
            case .invalidInput: throw ValidationError(error.message)
            case .notFound where error.code == .appNotFound: throw ValidationError(error.message)
            case .notFound, .conflict: fail(command, error.message, code: 1)
            default: fail(command, "the store did not answer: \(error.message)", code: 3)
            }
        case .failure(let error as StoreUnusable):
            fail(command, "the store is unusable: \(error.error)", code: 3)
        case .failure(let error):
            fail(command, "reading the store failed: \(error)", code: 3)
        }
    }

    /// The live and shadow rule sets the configuration names, to render the reasons of fired rules again; none
    /// (reasons left out, with a warning) when they do not load.
    private static func ruleSets(_ configuration: ServerConfiguration, clock: any EngineClock, logger: Logger, command: String) -> [RuleSet] {
        do {
            let reloader = try RuleSetStartup.load(configuration, clock: clock, logger: logger, fallbackDirectory: nil)
            return [reloader.holder.ruleSet] + (reloader.shadow.map { [$0.holder.ruleSet] } ?? [])
        } catch {
            FileHandle.standardError.write(Data("warning: the configured rule sets do not load, so fired rules show without reasons: \(error)\n".utf8))
            return []
        }
    }

    static func fail(_ command: String, _ message: String, code: Int32) -> Never {
        FileHandle.standardError.write(Data("attestguard \(command): \(message)\n".utf8))
        Foundation.exit(code)
    }

    /// The schema check failed: the database is unreachable, not migrated, or ahead of this build.
    private struct StoreUnusable: Error {
        let error: any Error
    }
}
