public import Foundation

/// Whether and how an app accepts debug tokens (`apps.<app>.debugTokens.*`): tokens an admin makes for the iOS
/// Simulator and CI runners, which have no App Attest. An app whose environments include `production` accepts them
/// only when its configuration says so outright (`allowInProduction`), and the server warns of it at every start.
public struct DebugTokenPolicy: Sendable, Hashable {
    /// The longest lifetime an admin may give a token of the app.
    public var maximumLifetime: TimeInterval
    /// The app accepts production keys and still takes debug tokens (`allowInProduction`).
    public var acceptedInProduction: Bool

    /// The lifetime a token gets when its admin names none.
    public static let defaultLifetime: TimeInterval = 7 * 86_400

    public init(maximumLifetime: TimeInterval = 30 * 86_400, acceptedInProduction: Bool = false) {
        self.maximumLifetime = maximumLifetime
        self.acceptedInProduction = acceptedInProduction
    }
}
