import AttestGuardStore
extension EngineError {
    /// The engine's view of a store refusal: same code, classed for the caller.
    init(_ rejection: StoreRejection) {
        let kind: Kind
        switch rejection.code {
        case .challengeUsed, .assertionAlreadyAccepted, .keyAlreadyRegistered: kind = .conflict
        case .keyNotFound: kind = .notFound
        default: kind = .verificationFailed
        }
        self.init(kind, code: rejection.code.errorCode, rejection.detail)
    }
}

extension EngineError {
    /// `store_unavailable` for a store that cannot be reached (``StoreError/Code/unavailable``), `nil` for any other
    /// error: for the HTTP layer, which maps errors to answers without knowing the store.
    public init?(storeFailure error: any Error) {
        guard let error = error as? StoreError, error.code == .unavailable else { return nil }
        self.init(.unavailable, code: .storeUnavailable, error.detail)
    }
}

/// Runs a store call, turning an unreachable store into `store_unavailable`; other store failures (a corrupt row,
/// a rejected statement) are bugs and propagate unchanged.
func withStore<Result>(_ operation: () async throws -> Result) async throws -> Result {
    do {
        return try await operation()
    } catch let error as StoreError where error.code == .unavailable {
        throw EngineError(.unavailable, code: .storeUnavailable, error.detail)
    }
}
