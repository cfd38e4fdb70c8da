import AttestGuardStore
public import AttestVocabulary
public import Foundation

/// A user's device passed Apple's DeviceCheck validation in an app: when AttestGuard recorded it, and the environment
/// Apple was asked in. Never the device token.
public struct DeviceCheckValidation: Sendable, Hashable {
    public var environment: AppAttestEnvironment
    public var validatedAt: Date

    init(_ record: DeviceCheckValidationRecord) {
        environment = record.environment
        validatedAt = record.validatedAt
    }
}
