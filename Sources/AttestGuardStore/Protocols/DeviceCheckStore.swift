public import AttestVocabulary
public import Foundation

/// Stored DeviceCheck bits and validations, read by scoring without calling Apple.
public protocol DeviceCheckStore: Sendable {
    /// Stores what Apple said of a subject's bits. A `nil` bit keeps the stored one (an update that set only one
    /// bit); the rest replaces the stored record.
    func storeDeviceCheckBits(_ record: DeviceCheckRecord) async throws

    /// The stored bits of a subject in one scope, if any.
    func deviceCheckBits(scope: DeviceCheckScope, environment: AppAttestEnvironment, subject: DeviceCheckSubject) async throws -> DeviceCheckRecord?

    /// Deletes team rows written before schema 12 (``DeviceCheckScope/legacyTeam(teamId:)``) observed before `cutoff`.
    /// - Returns: How many were deleted.
    func purgeLegacyDeviceCheckBits(observedBefore cutoff: Date) async throws -> Int

    /// Records that a user's device passed DeviceCheck validation in an app. The latest instant per (app, user)
    /// wins: an older one (a slower process) changes nothing.
    func recordDeviceCheckValidation(_ record: DeviceCheckValidationRecord) async throws

    /// The user's latest DeviceCheck validation in the app, if any.
    func deviceCheckValidation(appId: String, userId: String) async throws -> DeviceCheckValidationRecord?

    /// Marks bit 1 of a subject as set by rule `ruleId` and still to be sent to Apple with the subject's next device
    /// token (a rule has none: tokens come only from the device). A mark already there keeps its instant.
    func markDeviceCheckBit1Pending(scope: DeviceCheckScope, environment: AppAttestEnvironment, subject: DeviceCheckSubject, ruleId: String, at: Date) async throws

    /// When bit 1 of the subject was marked to be sent to Apple; `nil` when nothing waits.
    func deviceCheckBit1Pending(scope: DeviceCheckScope, environment: AppAttestEnvironment, subject: DeviceCheckSubject) async throws -> Date?

    /// Clears the subject's mark: Apple has the bit.
    func clearDeviceCheckBit1Pending(scope: DeviceCheckScope, environment: AppAttestEnvironment, subject: DeviceCheckSubject) async throws
}
