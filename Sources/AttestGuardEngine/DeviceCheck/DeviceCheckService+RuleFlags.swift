import AppleServices
import AttestGuardStore
import AttestVocabulary
import Foundation
import Logging

/// Bit 1 set by a rule (`then: set_devicecheck_bit1`): a rule has no device token (tokens come only from the
/// device, one at a time), so the bit is filed at once under the request's subjects, where the next verdicts read it,
/// and marked to be sent to Apple with the next device token presented for one of them: a query that files its
/// answer, an update, or a user's session validation. Until then a query's answer does not clear it.
extension DeviceCheckService {
    static let flagLogger = Logger(label: "attestguard.devicecheck")

    /// Files bit 1 as set under each of `subjects` in the app's scope and default environment, and marks each to be
    /// sent to Apple.
    /// - Returns: Whether anything changed (`false` when every subject already had bit 1 set).
    func flagBit1(appId: String, subjects: [DeviceCheckSubject], ruleId: String) async throws -> Bool {
        // The environment verdicts read the bits in: the key's when the request names one, else the app's default.
        var environment: AppAttestEnvironment?
        if let key = subjects.first(where: { $0.kind == .key }), let keyId = try? KeyId(base64: key.value) {
            environment = try await withStore { try await store.key(appId: appId, keyId: keyId.bytes) }?.environment
        }
        let target = try target(appId: appId, environment: environment)
        var changed = false
        for subject in subjects {
            try Self.check(subject)
            let stored = try await withStore { try await store.deviceCheckBits(scope: target.scope, environment: target.environment, subject: subject) }
            guard stored?.bit1 != true else { continue }
            changed = true
            let now = clock.now()
            defer { factsCache.deviceCheckBitsChanged(scope: target.scope, environment: target.environment, subject: subject) }
            try await withStore {
                try await store.markDeviceCheckBit1Pending(scope: target.scope, environment: target.environment, subject: subject, ruleId: ruleId, at: now)
                try await store.storeDeviceCheckBits(target.record(subject, bit0: nil, bit1: true, found: true, lastUpdateTime: stored?.lastUpdateTime, at: now))
            }
        }
        return changed
    }

    /// Whether a rule's bit 1 waits to be sent to Apple for `subject`.
    func bit1Pending(_ subject: DeviceCheckSubject, in target: DeviceCheckTarget) async throws -> Bool {
        try await withStore { try await store.deviceCheckBit1Pending(scope: target.scope, environment: target.environment, subject: subject) } != nil
    }

    /// Clears the mark of `subject`: Apple has the bit, or an update settled it.
    func clearBit1Pending(_ subject: DeviceCheckSubject, in target: DeviceCheckTarget) async throws {
        try await withStore { try await store.clearDeviceCheckBit1Pending(scope: target.scope, environment: target.environment, subject: subject) }
    }

    /// Sends a rule's pending bit 1 to Apple with `deviceToken`, the subject's, and clears the mark.
    /// - Returns: Whether Apple took it; a refusal or an outage is logged and the mark stays for the next token.
    func sendPendingBit1(_ subject: DeviceCheckSubject, deviceToken: String, in target: DeviceCheckTarget, client: any DeviceChecking) async -> Bool {
        do {
            try Self.unwrap(await client.update(deviceToken: deviceToken, bit0: nil, bit1: true, environment: target.environment), deviceToken: deviceToken, now: clock.now())
            metrics.recordDeviceCheck(operation: Self.ruleFlagOperation, result: Self.updatedResult)
            // Apple has it: a mark left by a store that did not answer only sends the bit once more.
            try? await clearBit1Pending(subject, in: target)
            return true
        } catch {
            let code = error.code.rawValue
            metrics.recordDeviceCheck(operation: Self.ruleFlagOperation, result: code)
            Self.flagLogger.warning("a rule's DeviceCheck bit 1 not sent to Apple; kept for the next device token", metadata: [
                "app": .string(target.appId), "subject_kind": .string(subject.kind.rawValue), "error": .string(code),
            ])
            return false
        }
    }

    /// The metric operation of sending a rule's bit 1 to Apple.
    static let ruleFlagOperation = "rule_flag"
}
