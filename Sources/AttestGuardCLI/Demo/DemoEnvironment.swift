import AttestGuardRuntime
import AttestVocabulary
import Foundation
import TrafficSimulator

/// The configuration of the demo's server, as the `ATTESTGUARD_*` variables an operator would set: simulator mode on
/// an SQLite file, one app accepting development keys with half its users in the attestation-required rollout and a
/// review queue for the actions ``PersonaExpectations/reviewQueueActions`` names, one API key with every scope, and
/// Apple's receipt and DeviceCheck hosts pointed at the demo's fake Apple with a provider key made for the run.
/// Receipts are redeemed a second after attestation so that a farm shows at once.
struct DemoEnvironment {
    static let teamId = "ABCDE12345"
    static let providerKeyId = "DEMOKEY123"
    static let attestationRequiredPercent = 50
    private static let apiKeyVariable = "ATTESTGUARD_DEMO_API_KEY"
    private static let providerKeyVariable = "ATTESTGUARD_DEMO_PROVIDER_KEY"

    var seed: String
    var port: Int
    var sqlitePath: String
    var rulesDirectory: String
    var fakeAppleURL: String
    var apiKey: String
    var providerPrivateKeyPEM: String
    var logLevel: String

    var variables: [String: String] {
        let appId = ServerConfigurationLoader.sampleAppId
        return [
            "ATTESTGUARD_MODE": ServerConfiguration.Mode.simulator.rawValue,
            "ATTESTGUARD_SIMULATOR_SEED": seed,
            "ATTESTGUARD_LOG_LEVEL": logLevel,
            "ATTESTGUARD_SERVER_HOST": "127.0.0.1",
            "ATTESTGUARD_SERVER_PORT": String(port),
            "ATTESTGUARD_DATABASE_SQLITE_PATH": sqlitePath,
            "ATTESTGUARD_RULES_DIRECTORY": rulesDirectory,
            "ATTESTGUARD_APPS_NAMES": "demo",
            "ATTESTGUARD_APPS_DEMO_APP_ID": appId,
            "ATTESTGUARD_APPS_DEMO_ENVIRONMENTS": AppAttestEnvironment.development.rawValue,
            "ATTESTGUARD_APPS_DEMO_ATTESTATION_REQUIRED_PERCENT": String(Self.attestationRequiredPercent),
            "ATTESTGUARD_APPS_DEMO_REVIEW_QUEUE_ACTIONS": PersonaExpectations.reviewQueueActions.joined(separator: ","),
            "ATTESTGUARD_API_KEYS_NAMES": "demo",
            "ATTESTGUARD_API_KEYS_DEMO_SECRET_ENV": Self.apiKeyVariable,
            "ATTESTGUARD_API_KEYS_DEMO_SCOPES": Scope.allCases.map(\.rawValue).joined(separator: ","),
            Self.apiKeyVariable: apiKey,
            "ATTESTGUARD_APPLE_TEAM_ID": Self.teamId,
            "ATTESTGUARD_APPLE_KEY_ID": Self.providerKeyId,
            "ATTESTGUARD_APPLE_PRIVATE_KEY_ENV": Self.providerKeyVariable,
            Self.providerKeyVariable: providerPrivateKeyPEM,
            "ATTESTGUARD_APPLE_HOSTS_RECEIPTS_DEVELOPMENT": fakeAppleURL,
            "ATTESTGUARD_APPLE_HOSTS_DEVICE_CHECK_DEVELOPMENT": fakeAppleURL,
            "ATTESTGUARD_RECEIPTS_REFRESH_FIRST_REDEMPTION_DELAY_SECONDS": "1",
            "ATTESTGUARD_RECEIPTS_REFRESH_POLL_SECONDS": "1",
        ]
    }
}
