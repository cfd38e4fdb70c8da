import SwiftASN1
import X509
import AttestCore

/// Builds the Apple extensions of a credential certificate in the exact DER shapes real devices produce.
enum CredentialCertificateExtensions {
    /// 1.2.840.113635.100.8.2: `SEQUENCE { [1] EXPLICIT OCTET STRING nonce }`.
    static func nonce(_ nonce: [UInt8]) throws -> Certificate.Extension {
        var serializer = DER.Serializer()
        try serializer.appendConstructedNode(identifier: .sequence) { sequence in
            try sequence.appendConstructedNode(identifier: tag(1)) { tagged in
                try tagged.serialize(ASN1OctetString(contentBytes: nonce[...]))
            }
        }
        return Certificate.Extension(oid: AppleCertificateExtensions.nonce, critical: false, value: serializer.serializedBytes[...])
    }

    /// 1.2.840.113635.100.8.6: the key's access-control policy, `SEQUENCE { [3] EXPLICIT OCTET STRING policy }` as in
    /// Apple's 2026 certificates.
    static func keyAccessControl(_ policy: [UInt8], critical: Bool) throws -> Certificate.Extension {
        var serializer = DER.Serializer()
        try serializer.appendConstructedNode(identifier: .sequence) { sequence in
            try sequence.appendConstructedNode(identifier: tag(3)) { tagged in
                try tagged.serialize(ASN1OctetString(contentBytes: policy[...]))
            }
        }
        return Certificate.Extension(oid: KeyAccessControlExtension.oid, critical: critical, value: serializer.serializedBytes[...])
    }

    /// 1.2.840.113635.100.8.5: app information, as an iOS 17 device writes it.
    static func appInfo(appId: String) throws -> Certificate.Extension {
        var serializer = DER.Serializer()
        try serializer.appendConstructedNode(identifier: .sequence) { sequence in
            try integer(4, 10, into: &sequence)
            for (tagNumber, value) in [(UInt(1200), 1), (1201, 0), (1202, 1), (1203, 1)] {
                try integer(tagNumber, value, into: &sequence)
            }
            try octets(1204, Array(appId.utf8), into: &sequence)
            try octets(5, Array("sks ".utf8), into: &sequence)
            for (tagNumber, value) in [(UInt(1206), 5), (1207, 0), (1209, 0), (1210, 0), (1211, 0)] {
                try integer(tagNumber, value, into: &sequence)
            }
        }
        return Certificate.Extension(oid: AppleCertificateExtensions.appInfo, critical: false, value: serializer.serializedBytes[...])
    }

    /// 1.2.840.113635.100.8.7: OS information (version, build).
    static func osInfo(version: String, build: String) throws -> Certificate.Extension {
        var serializer = DER.Serializer()
        try serializer.appendConstructedNode(identifier: .sequence) { sequence in
            try octets(1400, Array(version.utf8), into: &sequence)
            try integer(1104, 0xFFFF_FFFF, into: &sequence)
            try octets(1403, Array(build.utf8), into: &sequence)
            try octets(1405, Array(version.utf8), into: &sequence)
            try integer(1406, 0, into: &sequence)
            try octets(1420, Array("21.3.66.0.0,0".utf8), into: &sequence)
        }
        return Certificate.Extension(oid: AppleCertificateExtensions.osInfo, critical: false, value: serializer.serializedBytes[...])
    }

    private static func tag(_ number: UInt) -> ASN1Identifier {
        ASN1Identifier(tagWithNumber: number, tagClass: .contextSpecific)
    }

    private static func integer(_ tagNumber: UInt, _ value: Int, into serializer: inout DER.Serializer) throws {
        try serializer.appendConstructedNode(identifier: tag(tagNumber)) { try $0.serialize(value) }
    }

    private static func octets(_ tagNumber: UInt, _ value: [UInt8], into serializer: inout DER.Serializer) throws {
        try serializer.appendConstructedNode(identifier: tag(tagNumber)) {
            try $0.serialize(ASN1OctetString(contentBytes: value[...]))
        }
    }
}
