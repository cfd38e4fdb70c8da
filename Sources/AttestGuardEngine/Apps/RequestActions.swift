/// A choice of request actions (`purchase`, `claim_promo`) in an app's configuration: some by name, or every
/// request's, those naming no action included (`*`).
public struct RequestActions: Sendable, Hashable {
    /// The names chosen; `nil`: every action (`*`).
    public var names: Set<String>?

    public init(names: Set<String>?) {
        self.names = names
    }

    /// Every request's.
    public static let every = RequestActions(names: nil)

    /// Whether a request with `action` is chosen.
    public func includes(_ action: String?) -> Bool {
        guard let names else { return true }
        return action.map(names.contains) ?? false
    }
}
