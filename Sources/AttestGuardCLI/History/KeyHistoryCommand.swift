import ArgumentParser
import AttestGuardEngine
import AttestGuardWire
import Foundation

/// `attestguard keys history --app APP --key KEY`: a key's risk metrics, newest receipt first, and the state of its
/// receipt refreshes, read from the configured store. Exit 0 shown, 1 no such key, 2 usage or configuration, 3 the
/// store is unusable.
struct KeyHistoryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "Show a key's risk-metric history and receipt refreshes."
    )

    @OptionGroup var options: ConfigurationOption

    @Option(name: .long, help: "The app id, TEAMID.bundle.id.")
    var app: String

    @Option(name: .long, help: "The key id: base64url or standard base64.")
    var key: String

    @Option(name: .long, help: "How many risk metrics to show, newest first (1-\(HistoryService.maximumLimit)).")
    var limit: Int = HistoryService.defaultLimit

    @Flag(name: .long, help: "Print what GET /v1/apps/{appId}/keys/{keyId}/history answers, as JSON.")
    var json = false

    func run() async throws {
        let keyId: KeyId
        do {
            keyId = try KeyId(pathText: key, field: "--key")
        } catch {
            throw ValidationError(error.message)
        }
        let configuration = try await options.load()
        let (app, limit) = (app, limit)
        let history = try await HistoryStoreSession.run(command: "keys history", configuration: configuration) { service in
            try await service.keyHistory(appId: app, keyId: keyId, limit: limit)
        }
        print(json ? String(decoding: try WireJSON.encoder().encode(KeyHistoryBody(history)), as: UTF8.self) : HistoryReport.text(history))
    }
}
