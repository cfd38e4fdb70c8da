import AttestGuardWire
import AttestVocabulary
import Foundation

/// A promotion abuser: claims a promotion (the backend then sets DeviceCheck bit 0 for the device), reinstalls the
/// app (a new key on the same device, which supersedes the first) and claims again. The second claim is checked.
enum PromotionAbuser {
    static let action = "claim_promo"

    static func play(_ context: TrafficContext) async throws -> [ObservedOutcome] {
        var firstInstall = context.app(.promoAbuser, name: "promo-abuser", ip: context.settings.clientAddress(host: 2))
        _ = try await firstInstall.attest()
        _ = try await firstInstall.assertSucceeding(action: action)
        let deviceId = firstInstall.deviceId ?? firstInstall.userId
        // What the app's backend does after a successful claim: mark the device through DeviceCheck.
        let update = DeviceCheckUpdateRequestBody(
            appId: context.settings.appId,
            deviceToken: Data("device-token:\(deviceId)".utf8).base64EncodedString(),
            subject: .init(kind: .device, id: deviceId),
            bit0: true
        )
        let marked = try await context.api.post("/v1/devicecheck/update", update)
        guard marked.succeeded else { throw PersonaStepFailure(step: "DeviceCheck update", outcome: marked.outcome) }

        var reinstall = context.app(.promoAbuser, name: "promo-abuser", ip: context.settings.clientAddress(host: 2), keyIndex: 1)
        _ = try await reinstall.attest()
        let claim = try await reinstall.signAssertion(action: action)
        return [try await reinstall.send(claim).outcome]
    }
}

/// A re-signed build: the app taken from the store, re-signed with a development certificate (to strip its checks or
/// inject a tweak) and installed on a real device, which attests a key and claims the promotion once. Its App Attest
/// is genuine; only iOS 27's validation category (`development`) gives it away. The claim is checked.
enum ResignedBuild {
    static func play(_ context: TrafficContext) async throws -> [ObservedOutcome] {
        var app = context.app(.resignedBuild, name: "resigned-build", ip: context.settings.clientAddress(host: 8))
        _ = try await app.attest()
        let claim = try await app.signAssertion(action: PromotionAbuser.action)
        return [try await app.send(claim).outcome]
    }
}
