import AttestGuardEngine
import AttestVocabulary
import Foundation

extension WebhookEndpoint {
    /// Reads one receiver (`webhooks.<name>.*`): its URL (http or https), its secret (by file or environment variable,
    /// never inline; Standard Webhooks' `whsec_` form; several separated by whitespace during a rotation), the event
    /// types it takes (none listed: every type) and the apps whose events it takes (`["*"]` or none listed: every
    /// app's, list changes included).
    init(name: String, reading values: ConfigValues, environment: [String: String], apps: [String]) throws {
        guard !name.isEmpty, name.utf8.count <= 64, name.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || $0.properties.numericType != nil || $0 == "_" || $0 == "-") }) else {
            throw ConfigurationError(key: "webhooks.names", "a webhook's name is 1-64 letters, digits, _ and -, got \(name)")
        }
        guard let text = values.string("url"), let url = URL(string: text), let scheme = url.scheme?.lowercased(),
            scheme == "https" || scheme == "http", url.host?.isEmpty == false
        else {
            throw ConfigurationError(key: values.path("url"), "webhook \(name) needs an http or https URL", code: .missingValue)
        }
        guard let secretText = try values.secret("secret", environment: environment) else {
            throw ConfigurationError(key: values.path("secretFile"), "webhook \(name) needs secretFile or secretEnv", code: .missingSecret)
        }
        guard let secrets = WebhookSecret.list(text: secretText) else {
            throw ConfigurationError(
                key: values.path("secretFile"),
                "webhook \(name)'s secret is not whsec_ and the base64 of \(WebhookSecret.minimumBytes) or more bytes: printf 'whsec_%s\\n' \"$(openssl rand -base64 32)\""
                    + " (during a rotation, 2-\(WebhookSecret.maximumSecrets) such secrets separated by whitespace: one a line in a file, by spaces in a variable)"
            )
        }
        let events = try values.stringArray("events").map { word in
            guard let type = WebhookEventType(rawValue: word) else {
                throw ConfigurationError(
                    key: values.path("events"), "unknown event type \(word): \(WebhookEventType.allCases.map(\.rawValue).joined(separator: ", "))"
                )
            }
            return type
        }
        let chosenApps = values.stringArray("apps")
        for app in chosenApps where app != "*" && !apps.contains(app) {
            throw ConfigurationError(key: values.path("apps"), "\(app) is not an app of apps.names")
        }
        self.init(
            name: name, url: url, secrets: secrets, events: events.isEmpty ? Set(WebhookEventType.allCases) : Set(events),
            apps: chosenApps.isEmpty || chosenApps.contains("*") ? nil : Set(chosenApps)
        )
    }
}
