import AttestGuardWire
import ArgumentParser
import AttestGuardEngine
import AttestGuardRuntime
import AttestGuardStore
import Foundation
import Logging

/// `attestguard labels import FILE`: stores a fraud team's case export (CSV with a header row, or JSON lines) in the
/// configured store, with the checks of `POST /v1/labels`. All or nothing: every line is checked first, and a bad
/// one is reported with its line number and nothing is stored; then the whole file is stored in one transaction
/// (no batch bound). Prints how many labels were created, replaced and unchanged. On SQLite the store is opened
/// for writing, so a server holding the file must be stopped (or the labels posted to it instead). Exit 0 stored,
/// 1 a bad line (nothing stored), 2 usage or configuration, 3 the store is unusable.
struct ImportLabelsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "import", abstract: "Import fraud labels from a CSV or JSON lines file.")

    @OptionGroup var options: ConfigurationOption

    @Argument(help: "The file: CSV with a header row (.csv), or JSON lines (.jsonl, .ndjson, .json).")
    var file: String

    @Option(name: .long, help: "csv or jsonl (default: from the file's extension).")
    var format: String?

    @Flag(name: .long, help: "Print the counts as JSON.")
    var json = false

    func run() async throws {
        let format: LabelFile.Format
        if let named = self.format {
            guard let parsed = LabelFile.Format(rawValue: named.lowercased()) else { throw ValidationError("--format is csv or jsonl, not \(named)") }
            format = parsed
        } else {
            guard let detected = LabelFile.Format(path: file) else {
                throw ValidationError("cannot tell the format of \(file) from its extension: name it with --format csv or --format jsonl")
            }
            format = detected
        }
        guard let data = FileManager.default.contents(atPath: file), let text = String(data: data, encoding: .utf8) else {
            throw ValidationError("cannot read \(file) as UTF-8 text")
        }
        let configuration = try await options.load()
        let parsed: [(line: Int, fields: LabelFields)]
        do {
            parsed = try LabelFile.parse(text, format: format)
        } catch {
            Self.fail("\(file): \(error)", code: 1)
        }
        guard !parsed.isEmpty else { Self.fail("\(file): no labels", code: 1) }
        var logger = Logger(label: "attestguard")
        logger.logLevel = .warning
        let clock = SystemClock()
        let store: OpenedStore
        do {
            store = try await OpenedStore.open(configuration.database.coldPool, clock: { clock.now() }, logger: logger)
        } catch {
            Self.fail("cannot open the store: \(error)", code: 3)
        }
        let service = LabelService(store: store.store, apps: AppCatalog(configuration.apps), keying: configuration.engine.velocityKeying, clock: clock)
        let file = self.file
        let services = store.services
        let outcome: Result<LabelBatchResult, any Error> = await {
            do {
                return .success(try await withThrowingTaskGroup(of: LabelBatchResult?.self) { group in
                    for service in services { group.addTask { try await service.run(); return nil } }
                    _ = try await store.schemaVersion()
                    var labels: [FraudLabelRecord] = []
                    labels.reserveCapacity(parsed.count)
                    for (line, fields) in parsed {
                        do {
                            labels.append(try service.validate(try fields.submission()))
                        } catch let error as EngineError {
                            throw LabelFile.LineError(line: line, message: "\(error.code): \(error.message)")
                        }
                    }
                    let result = try await service.storeAll(labels)
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
            if json {
                let counts: [String: Any] = [
                    "file": file, "labels": result.outcomes.count, "created": result.created, "replaced": result.replaced, "unchanged": result.unchanged,
                ]
                let data = (try? JSONSerialization.data(withJSONObject: counts, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
                print(String(decoding: data, as: UTF8.self))
            } else {
                print("\(file): \(result.outcomes.count) labels: \(result.created) created, \(result.replaced) replaced, \(result.unchanged) unchanged")
            }
        case .failure(let error as LabelFile.LineError):
            Self.fail("\(file): \(error); nothing was stored", code: 1)
        case .failure(let error):
            Self.fail("storing the labels failed, nothing was stored: \(error)", code: 3)
        }
    }

    private static func fail(_ message: String, code: Int32) -> Never {
        FileHandle.standardError.write(Data("attestguard labels import: \(message)\n".utf8))
        Foundation.exit(code)
    }
}
