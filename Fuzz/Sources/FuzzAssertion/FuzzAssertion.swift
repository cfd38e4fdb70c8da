// Fuzzes AssertionObject(cbor:) and the full (synchronous) AssertionVerifier.verify with the fixed key,
// app and clientData of Tests/Fixtures/apple/real-device-dev-2024.
//
// Properties: no crash; a VALID verdict implies the object parses, its RP ID hash is the app's and its
// counter exceeds the previous one; re-encoding an accepted object gives the same verdict.
import AttestCore
import FuzzSupport

private let verifier = AssertionVerifier()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAssertion(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let bytes = fuzzInput(start, count)
    let object = try? AssertionObject(cbor: bytes)
    if let object, let data = try? AuthenticatorData(object.authenticatorData) {
        inspect(data)
    }

    let verdict = verifier.verify(
        bytes,
        publicKey: Fixture2024.publicKey,
        app: Fixture2024.app,
        clientData: Fixture2024.clientData,
        previousCounter: 0
    )
    switch verdict {
    case .valid(let assertion):
        guard let object else { fuzzFailure("VALID verdict for an object AssertionObject rejects") }
        fuzzCheck(assertion.counter > 0, "VALID with counter 0")
        fuzzCheck(assertion.authenticatorData.rpIdHash.elementsEqual(Fixture2024.app.rpIdHash), "VALID with a foreign RP ID hash")
        fuzzCheck(assertion.authenticatorData.rawValue == object.authenticatorData, "verified authenticator data differs")
        // The same assertion must fail once its counter has been used.
        let replay = verifier.verify(
            bytes, publicKey: Fixture2024.publicKey, app: Fixture2024.app, clientData: Fixture2024.clientData,
            previousCounter: assertion.counter)
        fuzzCheck(replay.error?.code == .counterNotIncreasing, "replay with the same counter is \(replay)")
    case .invalid(let error):
        _ = error.description
    }
    if let object {
        let again = verifier.verify(
            object.cborEncoded, publicKey: Fixture2024.publicKey, app: Fixture2024.app,
            clientData: Fixture2024.clientData, previousCounter: 0)
        // (Verdict is not Equatable: compare the verified value, or the failure's code.)
        fuzzCheck(again.value == verdict.value && again.error?.code == verdict.error?.code,
            "re-encoded assertion gets another verdict: \(again) vs \(verdict)")
    }
    return 0
}
