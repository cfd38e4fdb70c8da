import ArgumentParser
import AttestGuardEngine
import AttestGuardWire
import Foundation
import AttestGuardWire

/// `attestguard decisions --app APP --user USER`: the logged decisions about a key, user or device of an app over a
/// range, newest first, with the rules that fired and the signals they read. Users and devices are looked up by the
/// keyed hash the log keeps. Exit 0 shown (also when none), 2 usage or configuration, 3 the store is unusable.
struct DecisionsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decisions",
        abstract: "Show the logged decisions about a key, user or device."
    )

    @OptionGroup var options: ConfigurationOption

    @Option(name: .long, help: "The app id, TEAMID.bundle.id.")
    var app: String

    @Option(name: .long, help: "A key id (base64url or standard base64).")
    var key: String?

    @Option(name: .long, help: "A user id, as the backend names it.")
    var user: String?

    @Option(name: .long, help: "A device id, as the app's vendor identifier names it.")
    var device: String?

    @Option(name: .long, help: "The start of the range, RFC 3339 (default: a day before --to).")
    var from: String?

    @Option(name: .long, help: "The end of the range, RFC 3339, excluded (default: now).")
    var to: String?

    @Option(name: .long, help: "How many decisions to show, newest first (1-\(HistoryService.maximumLimit)).")
    var limit: Int = HistoryService.defaultLimit

    @Option(name: .long, help: "Where to go on: the `next` of the previous page.")
    var cursor: String?

    @Flag(name: .long, help: "Print what GET /v1/apps/{appId}/decisions answers, as JSON.")
    var json = false

    func validate() throws {
        guard [key, user, device].compactMap({ $0 }).count == 1 else {
            throw ValidationError("name exactly one of --key, --user and --device")
        }
    }

    func run() async throws {
        let query: DecisionQuery
        do {
            query = DecisionQuery(
                appId: app, subject: try subject(), from: try Self.instant(from, option: "--from"), to: try Self.instant(to, option: "--to"),
                limit: limit, cursor: try cursor.map { text throws(EngineError) in try DecisionCursor(text: text, field: "--cursor") }
            )
        } catch let error as EngineError {
            throw ValidationError(error.message)
        }
        let configuration = try await options.load()
        let page = try await HistoryStoreSession.run(command: "decisions", configuration: configuration) { service in
            try await service.decisions(query)
        }
        if json {
            print(String(decoding: try WireJSON.encoder().encode(DecisionPageBody(page)), as: UTF8.self))
        } else {
            let subject = key.map { "key \($0)" } ?? (user != nil ? "the user" : "the device")
            print(HistoryReport.text(page, subject: subject))
        }
    }

    private func subject() throws(EngineError) -> DecisionQuery.Subject {
        if let key { return .key(try KeyId(pathText: key, field: "--key")) }
        if let user { return .user(try Identifier(user, field: "--user")) }
        return .device(try Identifier(device ?? "", field: "--device"))
    }

    private static func instant(_ text: String?, option: String) throws -> Date? {
        guard let text else { return nil }
        guard let date = RFC3339.parse(text) else {
            throw ValidationError("\(option) \"\(text)\" is not an RFC 3339 time such as 2026-11-22T12:00:00Z")
        }
        return date
    }
}
