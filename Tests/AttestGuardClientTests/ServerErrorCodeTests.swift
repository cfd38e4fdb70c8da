import AttestGuardClient
import AttestVocabulary
import Testing

/// The client names the server's error codes without linking the server: each must be a code the server sends.
struct ServerErrorCodeTests {
    @Test func everyCodeTheClientNamesIsInTheServersRegistry() {
        let registry = Set(ErrorCode.allCases.map(\.rawValue))
        for code in ServerErrorCode.all {
            #expect(registry.contains(code.rawValue), "\(code) is not a code AttestGuard sends")
        }
    }
}
