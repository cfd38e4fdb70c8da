import AttestGuardStorage

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

/// Runs a store call, turning an unreachable store into `store_unavailable`; other store failures (a corrupt row,
/// a rejected statement) are bugs and propagate unchanged.
func withStore<Result>(_ operation: () async throws -> Result) async throws -> Result {
    do {
        return try await operation()
    } catch let error as StoreError where error.code == .unavailable {
        throw EngineError(.unavailable, code: .storeUnavailable, error.detail)
    }
}
