// Consistency checks on parsed authenticator data, shared by several harnesses.
import AttestCore

/// Reads every field of parsed authenticator data and checks it against the raw bytes.
public func inspect(_ data: AuthenticatorData) {
    let raw = data.rawValue
    fuzzCheck(raw.count >= AuthenticatorData.headerLength, "accepted \(raw.count) bytes of authenticator data")
    fuzzCheck(data.rpIdHash.count == 32, "rpIdHash is \(data.rpIdHash.count) bytes")
    fuzzCheck(data.rpIdHash.elementsEqual(raw[0..<32]), "rpIdHash is not bytes 0..<32")
    fuzzCheck(data.flags.rawValue == raw[32], "flags are not byte 32")
    let counter = raw[33..<37].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
    fuzzCheck(data.signCount == counter, "signCount \(data.signCount) is not big-endian bytes 33..<37 (\(counter))")
    fuzzCheck(data.remainder.elementsEqual(raw.dropFirst(37)), "remainder is not bytes 37...")
    _ = data.flags.contains(.attestedCredentialData)
}

/// Reads every field of parsed attested credential data and checks its lengths.
public func inspect(_ credential: AttestedCredentialData, remainderCount: Int) {
    fuzzCheck(credential.aaguid.count == 16, "aaguid is \(credential.aaguid.count) bytes")
    fuzzCheck(credential.coseKey.mapEntries != nil, "COSE key is a \(credential.coseKey.typeName)")
    fuzzCheck(18 + credential.credentialId.count + credential.trailingData.count < remainderCount + 1,
        "credential id and trailing data exceed the input")
    if let item = credential.trailingItem { _ = item.exerciseAccessors() }
    if let point = credential.coseKeyX963 {
        fuzzCheck(point.count == 65 && point[0] == 0x04, "coseKeyX963 is not a 65-byte uncompressed point")
    }
    _ = credential.coseKey.exerciseAccessors()
}

/// Whether two parse results agree: field by field, the CBOR items compared by their encoding
/// (a NaN float makes `==` false even for identical parses).
public func sameParse(_ lhs: AttestedCredentialData?, _ rhs: AttestedCredentialData?) -> Bool {
    guard let lhs, let rhs else { return lhs == nil && rhs == nil }
    return lhs.aaguid == rhs.aaguid && lhs.credentialId == rhs.credentialId && lhs.trailingData == rhs.trailingData
        && CBOREncoder.encode(lhs.coseKey) == CBOREncoder.encode(rhs.coseKey)
        && lhs.trailingItem.map(CBOREncoder.encode) == rhs.trailingItem.map(CBOREncoder.encode)
}
