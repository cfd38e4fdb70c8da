// Fuzzes AttestationObject(cbor:) and, on what it accepts, the authenticator data and attested credential
// data parsers exactly as AttestationVerifier chains them (authData -> remainder -> credential data).
//
// Properties: no crash; an accepted object re-encodes (cborEncoded) to one that parses to the same parts.
import AttestCore
import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAttestationObject(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let bytes = fuzzInput(start, count)
    guard let object = try? AttestationObject(cbor: bytes) else { return 0 }

    fuzzCheck(object.format == "apple-appattest", "accepted format \(object.format)")
    fuzzCheck(!object.certificates.isEmpty, "accepted an empty x5c")
    let reencoded = object.cborEncoded
    if reencoded.count <= AttestationObject.maximumSize {
        do {
            let again = try AttestationObject(cbor: reencoded)
            fuzzCheck(again == object, "cborEncoded does not round-trip")
        } catch {
            fuzzFailure("cborEncoded of an accepted object does not parse: \(error)")
        }
    }

    guard let authenticatorData = try? AuthenticatorData(object.authenticatorData) else { return 0 }
    inspect(authenticatorData)
    if let credential = try? AttestedCredentialData(authenticatorData.remainder) {
        inspect(credential, remainderCount: authenticatorData.remainder.count)
    }
    return 0
}
