public import AttestVocabulary
public import Foundation

/// One receiver of webhook events (`webhooks.<webhook>.*`): where they go, the secret they are signed with, and which
/// events of which apps it takes.
public struct WebhookEndpoint: Sendable, Hashable {
    /// Its name in `webhooks.names`: the outbox and the delivery log name it by this.
    public var name: String
    public var url: URL
    public var secret: WebhookSecret
    /// The event types it takes.
    public var events: Set<WebhookEventType>
    /// The apps whose events it takes; `nil`: every app's (and list changes, which belong to no app).
    public var apps: Set<String>?

    public init(name: String, url: URL, secret: WebhookSecret, events: Set<WebhookEventType> = Set(WebhookEventType.allCases), apps: Set<String>? = nil) {
        self.name = name
        self.url = url
        self.secret = secret
        self.events = events
        self.apps = apps
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
}
