import AttestGuardWire
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The debug token of a Simulator build or a CI runner (``AttestGuardClient/Configuration/debugToken``), sent in
/// `X-AppAttest-Token` where a device would send an assertion. It is carried only where the App Attest provider says
/// the device cannot attest (the iOS Simulator, a Mac running tests), so that a token left in a configuration never
/// stands in for a device that can: there the client attests as usual. Decided once per client, with one event.
actor DebugTokenCarrier {
    let token: String
    let settings: ClientSettings
    private var carries: Bool?

    init(token: String, settings: ClientSettings) {
        self.token = token
        self.settings = settings
    }

    /// Whether requests carry the debug token: the device cannot attest.
    func isCarried() async -> Bool {
        if let carries { return carries }
        let unsupported = await !settings.provider.isSupported
        if carries == nil {
            carries = unsupported
            settings.onEvent(unsupported ? .debugTokenCarried : .debugTokenIgnored)
        }
        return carries ?? unsupported
    }

    /// `request` with the debug token and no other App Attest header.
    nonisolated func carrying(_ request: URLRequest) -> RequestSigner.Signed {
        var carrying = request
        for header in AppAttestHeader.allCases { carrying.setValue(nil, forHTTPHeaderField: header.rawValue) }
        carrying.setValue(token, forHTTPHeaderField: AppAttestHeader.sessionToken.rawValue)
        return RequestSigner.Signed(request: carrying, keyId: nil, sessionToken: nil)
    }
}
