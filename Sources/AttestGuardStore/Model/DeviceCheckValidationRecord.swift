public import AttestVocabulary
public import Foundation

/// When a user's device last passed Apple's DeviceCheck validation (`validate_device_token`) in an app, and the
/// environment Apple was asked in. One per (app, user): recording an older instant keeps the newer one. Never the
/// device token.
public struct DeviceCheckValidationRecord: Sendable, Hashable {
    public var appId: String
    /// The user the gateway authenticated, as every other table keeps it.
    public var userId: String
    /// `development` or `production`.
    public var environment: AppAttestEnvironment
    public var validatedAt: Date

    public init(appId: String, userId: String, environment: AppAttestEnvironment, validatedAt: Date) {
        self.appId = appId
        self.userId = userId
        self.environment = environment
        self.validatedAt = validatedAt
    }
}
