import AttestGuardStore
import AttestVocabulary
import Foundation

extension DeviceCheckService {
    /// The metric operation of ``validateSession(appId:userId:deviceToken:)``.
    static let sessionOperation = "validate_session"

    /// Asks Apple whether a user's device token is valid (`validate_device_token`), in the environment chosen as
    /// for ``validate(appId:deviceToken:environment:)`` without a requested one, and on success records when, per
    /// (app, user), for scoring to read without Apple (`devicecheck.validated_at`). An app calls it once per
    /// session; the latest validation wins. Apple's refusals and outages are the same errors as for the other
    /// DeviceCheck calls, and nothing is recorded then. A rule's bit 1 waiting for the user (`set_devicecheck_bit1`)
    /// goes to Apple with the token.
    /// - Parameters:
    ///   - appId: The app, as the gateway's route policy names it.
    ///   - userId: The user the gateway authenticated.
    ///   - deviceToken: The device's single-use `DCDevice` token: sent to Apple, never stored.
    /// - Returns: The validation as recorded.
    public func validateSession(appId: String, userId: Identifier, deviceToken: String) async throws -> DeviceCheckValidation {
        try await instrumented(Self.sessionOperation) {
            let target = try target(appId: appId, environment: nil)
            try await askValid(deviceToken, in: target)
            let record = DeviceCheckValidationRecord(appId: target.appId, userId: userId.value, environment: target.environment, validatedAt: clock.now())
            // Told whatever the outcome: a write that timed out may still have committed.
            defer { factsCache.deviceCheckValidationChanged(appId: record.appId, userId: record.userId) }
            try await withStore { try await store.recordDeviceCheckValidation(record) }
            // The user's token carries a rule's pending bit 1 to Apple.
            // Best effort: the validation is recorded, and a mark the store does not show waits for the next token.
            let subject = DeviceCheckSubject(kind: .user, value: userId.value)
            if (try? await bit1Pending(subject, in: target)) == true,
                let client = try? requireClient(),
                await sendPendingBit1(subject, deviceToken: deviceToken, in: target, client: client)
            {
                let now = clock.now()
                _ = try? await file(target.record(subject, bit0: nil, bit1: true, found: true, lastUpdateTime: Self.month(of: now), at: now))
            }
            return (DeviceCheckValidation(record), Self.validResult)
        }
    }
}
