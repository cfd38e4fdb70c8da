import ArgumentParser
import AttestGuardEngine
import AttestGuardRuntime
import AttestGuardStore
import AttestGuardWire
import Foundation

extension AttestGuardCommand {
    /// `attestguard debug-tokens`: the debug tokens that stand for App Attest on the iOS Simulator and CI runners.
    struct DebugTokens: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "debug-tokens",
            abstract: "Make, list and revoke the debug tokens of apps that accept them (the iOS Simulator, CI runners).",
            subcommands: [CreateDebugTokenCommand.self, ListDebugTokensCommand.self, RevokeDebugTokenCommand.self]
        )
    }
}

/// What the three `debug-tokens` commands share: the configured app, checked to accept debug tokens before the store
/// is opened, and the store, opened as the other store commands open it (``HistoryStoreSession``). Exit codes: 2
/// usage, configuration, or an app that accepts no debug tokens; 1 no such token; 3 the store is unusable.
struct DebugTokenOptions: ParsableArguments {
    @OptionGroup var configuration: ConfigurationOption

    @Option(name: .long, help: "The app id, TEAMID.bundle.id.")
    var app: String

    @Flag(name: .long, help: "Print what the admin route answers, as JSON.")
    var json = false

    /// Runs `body` with the debug-token service of the configured store.
    func run<Result: Sendable>(
        _ command: String, writing: Bool, _ body: @escaping @Sendable (DebugTokenService, String) async throws -> Result
    ) async throws -> Result {
        let configuration = try await self.configuration.load()
        let apps = AppCatalog(configuration.apps)
        let app = self.app
        do {
            guard try apps.policy(for: app).debugTokens != nil else {
                throw ValidationError("app \(app) accepts no debug tokens: set apps.<app>.debugTokens.enabled: true")
            }
        } catch let error as EngineError {
            throw ValidationError(error.message)
        }
        return try await HistoryStoreSession.reading(command: "debug-tokens \(command)", configuration: configuration, writing: writing) { store in
            try await body(DebugTokenService(store: store, apps: apps, clock: SystemClock()), app)
        }
    }

    func print<Body: Encodable>(_ body: Body, text: String) throws {
        Swift.print(json ? String(decoding: try WireJSON.encoder().encode(body), as: UTF8.self) : text)
    }

    /// One token as a line: id, state, name, expiry, uses.
    static func line(_ token: DebugTokenBody) -> String {
        let used = token.lastUsedAt.map { ", last \(RFC3339.format($0))" } ?? ""
        return "\(token.id)  \(token.state.rawValue)  \(token.name)  expires \(RFC3339.format(token.expiresAt))  \(token.uses) uses\(used)"
    }
}

/// `attestguard debug-tokens create --app APP --name NAME [--days N]`: makes a token and prints its secret, which is
/// shown this once (the store keeps only its SHA-256).
struct CreateDebugTokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "create", abstract: "Make a debug token and print its secret once.")

    @OptionGroup var options: DebugTokenOptions

    @Option(name: .long, help: "Whose token it is: a developer, a CI runner (shown in listings and logs).")
    var name: String

    @Option(name: .long, help: "How many days it lives, 1 to the app's debugTokens.maxLifetimeDays (default 7, or that maximum if lower).")
    var days: Int?

    func run() async throws {
        let identifier: Identifier
        do {
            identifier = try Identifier(name, field: "--name")
        } catch {
            throw ValidationError(error.message)
        }
        let days = self.days
        let created = try await options.run("create", writing: true) { service, app in
            let created = try await service.create(appId: app, name: identifier, lifetimeDays: days, createdBy: "cli")
            return DebugTokenCreatedBody(token: DebugTokenBody(created.token, now: service.clock.now()), secret: created.secret)
        }
        try options.print(created, text: """
            \(DebugTokenOptions.line(created.token))
            secret (shown once; put it in the app's Simulator configuration): \(created.secret)
            """)
    }
}

/// `attestguard debug-tokens list --app APP`: the app's tokens, newest first, with their state and uses.
struct ListDebugTokensCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List an app's debug tokens, newest first.")

    @OptionGroup var options: DebugTokenOptions

    func run() async throws {
        let listed = try await options.run("list", writing: false) { service, app in
            let now = service.clock.now()
            return DebugTokenListBody(tokens: try await service.list(appId: app).map { DebugTokenBody($0, now: now) })
        }
        try options.print(listed, text: listed.tokens.isEmpty ? "no debug tokens" : listed.tokens.map(DebugTokenOptions.line).joined(separator: "\n"))
    }
}

/// `attestguard debug-tokens revoke --app APP --id dbg_…`: revokes a token for good; its next request is refused.
struct RevokeDebugTokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "revoke", abstract: "Revoke a debug token for good.")

    @OptionGroup var options: DebugTokenOptions

    @Option(name: .long, help: "The token's id (dbg_…), as create and list print it.")
    var id: String

    func run() async throws {
        let id = self.id
        let revoked = try await options.run("revoke", writing: true) { service, app in
            DebugTokenBody(try await service.revoke(appId: app, id: id), now: service.clock.now())
        }
        try options.print(revoked, text: DebugTokenOptions.line(revoked))
    }
}
