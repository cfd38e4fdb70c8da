import Foundation

/// The DeviceCheck validation of a device that cannot attest: once per client session (the first request that goes
/// unattested), never per request; after a failure, again once the retry policy's cooldown has passed. Its outcome
/// is AttestGuard's to score (`devicecheck.validated_age`); a failure does not stop the request.
actor SessionDeviceCheck {
    private let settings: ClientSettings
    private var validation: Task<Bool, Never>?
    private var failedAt: Date?

    init(settings: ClientSettings) {
        self.settings = settings
    }

    /// Validates this session's device once; later calls wait for that one.
    func validateOnce() async {
        if let failedAt, settings.clock.now() >= failedAt.addingTimeInterval(settings.retry.attestationCooldown) {
            validation = nil
            self.failedAt = nil
        }
        if let validation {
            _ = await validation.value
            return
        }
        let task = Task { await self.validate() }
        validation = task
        if await !task.value, failedAt == nil { failedAt = settings.clock.now() }
    }

    /// Whether the device validated.
    private func validate() async -> Bool {
        guard let deviceCheck = settings.deviceCheck, await deviceCheck.isSupported else {
            settings.onEvent(.deviceValidationFailed(reason: AppAttestFailure.Code.featureUnsupported.description))
            return false
        }
        do {
            let token = try await deviceCheck.generateToken()
            try await settings.routes.validateDevice(token: token)
            settings.onEvent(.deviceValidated)
            return true
        } catch let error as AttestGuardClientError {
            settings.onEvent(.deviceValidationFailed(reason: error.code.description))
        } catch {
            settings.onEvent(.deviceValidationFailed(reason: AppAttestFailure(classifying: error).code.description))
        }
        return false
    }
}
