import Foundation
import AttestCore
import AttestGuardEngine
import AttestVocabulary

extension AppPolicy {
    /// Reads one app (`apps.<name>.*`): its id, environments, clientData conventions, mode, rollout and builds.
    init(reading app: ConfigValues) throws {
        let appId = try app.requiredString("appId")
        guard AppCatalog.isWellFormed(appId: appId) else {
            throw ConfigurationError(key: app.path("appId"), "must be TEAMID.bundle.id, got \(appId)")
        }
        let environmentNames = app.stringArray("environments")
        let environments: [AppAttestEnvironment] = try environmentNames.isEmpty ? [.production] : environmentNames.map { name in
            guard let environment = AppAttestEnvironment(rawValue: name) else {
                throw ConfigurationError(key: app.path("environments"), "unknown environment \(name) (development or production)")
            }
            return environment
        }
        let hashing: ChallengeHashing =
            switch app.string("attestationClientDataHash", default: "sha256") {
            case "sha256": .sha256
            case "raw": .none
            case let other: throw ConfigurationError(key: app.path("attestationClientDataHash"), "must be sha256 or raw, got \(other)")
            }
        let format: ClientDataFormat =
            switch app.string("clientDataFormat", default: "v1") {
            case "v1": .v1
            case "legacy": .legacy(challengePointer: try app.requiredString("legacyChallengePointer"))
            case let other: throw ConfigurationError(key: app.path("clientDataFormat"), "must be v1 or legacy, got \(other)")
            }
        self.init(
            appId: appId,
            environments: Set(environments),
            attestationHashing: hashing,
            clientDataFormat: format,
            mode: try app.choice("mode", default: Mode.enforce),
            attestationRequiredPercent: try app.int("attestationRequiredPercent", default: 0, range: 0...100),
            onStoreError: try app.choice("onStoreError", default: Decision.review),
            sharesDeviceCheckBits: try app.bool("shareDeviceCheckBits", default: false),
            attestationRamp: try AttestationRamp.reading(app.scoped("ramp")),
            build: try AppBuildPolicy.reading(app.scoped("build")),
            sessionTokenLifetime: try Self.sessionTokenLifetime(app.scoped("sessionTokens")),
            debugTokens: try Self.debugTokens(app.scoped("debugTokens"), production: environments.contains(.production)),
            review: try Self.review(app.scoped("reviewQueue")),
            verdictWebhooks: try Self.verdictWebhooks(app.scoped("webhooks"))
        )
    }
}

extension AppPolicy {
    /// The default lifetime of an app's session tokens: minutes, so that a revoked key's tokens do not outlive it by
    /// much.
    static let defaultSessionTokenSeconds = 600

    /// `apps.<app>.sessionTokens.*`: the lifetime when `enabled`, else `nil`.
    static func sessionTokenLifetime(_ values: ConfigValues) throws -> TimeInterval? {
        let seconds = try values.int("ttlSeconds", default: defaultSessionTokenSeconds, range: 60...86_400)
        return try values.bool("enabled", default: false) ? TimeInterval(seconds) : nil
    }
}

extension AppPolicy {
    /// `apps.<app>.debugTokens.*`: the policy when `enabled`, else `nil`. An app that accepts production keys takes
    /// debug tokens only with `allowInProduction: true`.
    static func debugTokens(_ values: ConfigValues, production: Bool) throws -> DebugTokenPolicy? {
        let days = try values.int("maxLifetimeDays", default: 30, range: 1...365)
        let inProduction = try values.bool("allowInProduction", default: false)
        guard try values.bool("enabled", default: false) else { return nil }
        if production, !inProduction {
            throw ConfigurationError(
                key: values.path("allowInProduction"),
                "the app accepts production keys: debug tokens would let anyone holding one past every require route of the live app; set allowInProduction: true if that is meant (the server warns of it at every start), or list only development in environments"
            )
        }
        return DebugTokenPolicy(maximumLifetime: TimeInterval(days) * 86_400, acceptedInProduction: production)
    }
}

extension AppPolicy {
    /// `apps.<app>.webhooks.verdictActions`: the actions whose deny and review verdicts become webhook events (`*` for
    /// every verdict); `nil` when none is named.
    static func verdictWebhooks(_ values: ConfigValues) throws -> RequestActions? {
        let actions = values.stringArray("verdictActions")
        guard !actions.isEmpty else { return nil }
        for action in actions where action != "*" && !ReviewPolicy.isWellFormed(action: action) {
            throw ConfigurationError(key: values.path("verdictActions"), "an action is 1-64 characters, or *; got an empty one or a longer one")
        }
        return actions.contains("*") ? .every : RequestActions(names: Set(actions))
    }
}

extension AppPolicy {
    /// `apps.<app>.reviewQueue.*`: the policy when `actions` names any (`*` for every verdict), else `nil`.
    static func review(_ values: ConfigValues) throws -> ReviewPolicy? {
        let hours = try values.int("itemLifetimeHours", default: ReviewPolicy.defaultItemLifetimeHours, range: 1...720)
        let actions = values.stringArray("actions")
        guard !actions.isEmpty else { return nil }
        for action in actions where action != "*" && !ReviewPolicy.isWellFormed(action: action) {
            throw ConfigurationError(key: values.path("actions"), "an action is 1-64 characters, or *; got an empty one or a longer one")
        }
        return ReviewPolicy(actions: actions.contains("*") ? nil : Set(actions), itemLifetime: TimeInterval(hours) * 3_600)
    }
}
