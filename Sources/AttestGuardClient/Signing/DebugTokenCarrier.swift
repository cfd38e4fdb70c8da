import AttestGuardWire
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The debug token of a Simulator build or a CI runner (``AttestGuardClient/Configuration/debugToken``), sent in
/// `X-AppAttest-Token` where a device would send an assertion. It is carried only by a Simulator or debug build of
/// the library, and only where the App Attest provider says the device cannot attest (the iOS Simulator, a Mac running
/// tests): a release build ignores it, so a token left in a shipped configuration stands in for no device, and a
/// device that can attest does so as usual. Decided once per client, with one event.
actor DebugTokenCarrier {
    /// Whether this build of the library carries debug tokens: Simulator and debug builds do, release builds for a
    /// device do not.
    static let buildCarriesDebugTokens: Bool = {
        #if targetEnvironment(simulator) || DEBUG
        true
        #else
        false
        #endif
    }()

    let token: String
    let settings: ClientSettings
    private var carries: Bool?

    init(token: String, settings: ClientSettings) {
        self.token = token
        self.settings = settings
    }

    /// Whether requests carry the debug token: the build carries them and the device cannot attest.
    func isCarried() async -> Bool {
        if let carries { return carries }
        let carried = Self.buildCarriesDebugTokens ? await !settings.provider.isSupported : false
        if carries == nil {
            carries = carried
            settings.onEvent(carried ? .debugTokenCarried : .debugTokenIgnored)
        }
        return carries ?? carried
    }

    /// `request` with the debug token and no other App Attest header.
    nonisolated func carrying(_ request: URLRequest) -> RequestSigner.Signed {
        var carrying = request
        for header in AppAttestHeader.allCases { carrying.setValue(nil, forHTTPHeaderField: header.rawValue) }
        carrying.setValue(token, forHTTPHeaderField: AppAttestHeader.sessionToken.rawValue)
        return RequestSigner.Signed(request: carrying, keyId: nil, sessionToken: nil)
    }
}
