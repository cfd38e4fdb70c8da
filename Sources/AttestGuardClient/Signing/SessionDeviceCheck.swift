import Foundation

/// The DeviceCheck validation of a device that cannot attest: once per client session (the first request that goes
/// unattested), never per request. Its outcome is AttestGuard's to score (`devicecheck.validated_age`); a failure
/// does not stop the request.
actor SessionDeviceCheck {
    private let settings: ClientSettings
    private var validation: Task<Void, Never>?

    init(settings: ClientSettings) {
        self.settings = settings
    }

    /// Validates this session's device once; later calls wait for that one.
    func validateOnce() async {
        if let validation { return await validation.value }
        let task = Task { await self.validate() }
        validation = task
        await task.value
    }

    private func validate() async {
        guard let deviceCheck = settings.deviceCheck, await deviceCheck.isSupported else {
            settings.onEvent(.deviceValidationFailed(reason: AppAttestFailure.Code.featureUnsupported.description))
            return
        }
        do {
            let token = try await deviceCheck.generateToken()
            try await settings.routes.validateDevice(token: token)
            settings.onEvent(.deviceValidated)
        } catch let error as AttestGuardClientError {
            settings.onEvent(.deviceValidationFailed(reason: error.code.description))
        } catch {
            settings.onEvent(.deviceValidationFailed(reason: AppAttestFailure(classifying: error).code.description))
        }
    }
}
