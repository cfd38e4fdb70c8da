// Fuzzes AuthenticatorData(_:) and AttestedCredentialData(_:) directly on raw bytes (no CBOR wrapper),
// including ArraySlice inputs whose indices do not start at zero.
import AttestCore
import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAuthenticatorData(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let bytes = fuzzInput(start, count)

    if let data = try? AuthenticatorData(bytes) {
        inspect(data)
        if let credential = try? AttestedCredentialData(data.remainder) {
            inspect(credential, remainderCount: data.remainder.count)
        }
    } else {
        fuzzCheck(bytes.count < AuthenticatorData.headerLength, "rejected \(bytes.count) bytes of authenticator data")
    }

    // The bare credential data, as a zero-based slice and as a slice that starts further in.
    let whole = try? AttestedCredentialData(bytes[...])
    if let whole { inspect(whole, remainderCount: bytes.count) }
    if !bytes.isEmpty {
        let shifted = ([0xA5] + bytes)[1...]
        let other = try? AttestedCredentialData(shifted)
        fuzzCheck(sameParse(other, whole), "AttestedCredentialData depends on the slice's start index")
    }
    return 0
}
