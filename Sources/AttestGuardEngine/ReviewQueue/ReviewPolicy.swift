public import Foundation

/// Which of an app's `review` verdicts open items in its review queue (`apps.<app>.reviewQueue.*`), and how long an item
/// waits for an analyst.
public struct ReviewPolicy: Sendable, Hashable {
    /// The request actions (`purchase`, `claim_promo`) whose review verdicts open items; `nil`: every verdict's,
    /// those naming no action included (`*`).
    public var actions: Set<String>?
    /// How long an item stays in the queue undecided before it expires.
    public var itemLifetime: TimeInterval

    /// The lifetime an item gets when the configuration names none: three days, a long weekend.
    public static let defaultItemLifetimeHours = 72

    public init(actions: Set<String>?, itemLifetime: TimeInterval = TimeInterval(defaultItemLifetimeHours) * 3_600) {
        self.actions = actions
        self.itemLifetime = itemLifetime
    }

    /// Whether `action` can name a request's action (1-64 characters, as the routes take them).
    public static func isWellFormed(action: String) -> Bool {
        !action.isEmpty && action.unicodeScalars.count <= 64
    }

    /// Whether a review verdict of a request with `action` opens an item.
    public func opens(action: String?) -> Bool {
        guard let actions else { return true }
        return action.map(actions.contains) ?? false
    }
}
