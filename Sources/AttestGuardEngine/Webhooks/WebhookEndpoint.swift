public import AttestVocabulary
public import Foundation

/// One receiver of webhook events (`webhooks.<webhook>.*`): where they go, the secrets they are signed with, and
/// which events of which apps it takes.
public struct WebhookEndpoint: Sendable, Hashable {
    /// Its name in `webhooks.names`: the outbox and the delivery log name it by this.
    public var name: String
    public var url: URL
    /// The secrets each delivery is signed with, one signature each: one, or during a rotation the new and the old.
    public var secrets: [WebhookSecret]
    /// The event types it takes.
    public var events: Set<WebhookEventType>
    /// The apps whose events it takes; `nil`: every app's (and list changes, which belong to no app).
    public var apps: Set<String>?

    /// - Parameter secrets: At least one.
    public init(
        name: String, url: URL, secrets: [WebhookSecret], events: Set<WebhookEventType> = Set(WebhookEventType.allCases), apps: Set<String>? = nil
    ) {
        precondition(!secrets.isEmpty, "a webhook receiver needs a secret")
        self.name = name
        self.url = url
        self.secrets = secrets
        self.events = events
        self.apps = apps
    }

    /// A receiver with one secret.
    public init(name: String, url: URL, secret: WebhookSecret, events: Set<WebhookEventType> = Set(WebhookEventType.allCases), apps: Set<String>? = nil) {
        self.init(name: name, url: url, secrets: [secret], events: events, apps: apps)
    }

    /// Whether it takes an event of `type` about `appId` (`nil`: an event of no app, which only a receiver of every
    /// app takes).
    public func takes(_ type: WebhookEventType, appId: String?) -> Bool {
        guard events.contains(type) else { return false }
        guard let apps else { return true }
        return appId.map(apps.contains) ?? false
    }
}

/// A receiver's signing secret, as Standard Webhooks writes one: `whsec_` and the base64 of at least 24 random bytes
/// (`printf 'whsec_%s\n' "$(openssl rand -base64 32)"`). Never printed.
public struct WebhookSecret: Sendable, Hashable, CustomStringConvertible {
    /// The HMAC key: the decoded bytes.
    public let key: Data

    /// The fewest bytes a secret may decode to.
    public static let minimumBytes = 24
    /// What a secret's text starts with.
    public static let prefix = "whsec_"

    /// Reads `text` (surrounding whitespace ignored); `nil` when it is not `whsec_` and base64 of at least
    /// ``minimumBytes`` bytes.
    public init?(text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.hasPrefix(Self.prefix), let key = Data(base64Encoded: String(trimmed.dropFirst(Self.prefix.count))),
            key.count >= Self.minimumBytes
        else { return nil }
        self.key = key
    }

    public var description: String { "whsec_…" }

    /// The most secrets one receiver is signed with at once.
    public static let maximumSecrets = 4

    /// Reads the secrets of `text`, separated by whitespace (a file may hold one a line), in their order: `nil` when
    /// there is none, more than ``maximumSecrets``, or one that ``init(text:)`` refuses.
    public static func list(text: String) -> [WebhookSecret]? {
        let secrets = text.split(whereSeparator: \.isWhitespace).map { WebhookSecret(text: String($0)) }
        guard (1...maximumSecrets).contains(secrets.count), !secrets.contains(nil) else { return nil }
        return secrets.compactMap(\.self)
    }
}
