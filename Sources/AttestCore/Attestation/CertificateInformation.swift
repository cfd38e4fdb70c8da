import SwiftASN1

/// The informational fields of a credential certificate's Apple extensions (app info 8.5 and OS
/// info 8.7: a SEQUENCE of context-tagged values, each an INTEGER or an OCTET STRING; the key's access-control policy
/// 8.6).
///
/// Nothing here is verified; it helps a developer see what device and OS produced an attestation.
public struct CertificateInformation: Sendable, Hashable {
    /// One tagged value from an Apple extension.
    public enum Value: Sendable, Hashable, CustomStringConvertible {
        case integer(Int64)
        case text(String)
        case bytes([UInt8])

        public var description: String {
            switch self {
            case .integer(let value): String(value)
            case .text(let value): value
            case .bytes(let value): Hex.encode(value)
            }
        }
    }

    /// The app information fields (1.2.840.113635.100.8.5) by context tag number.
    public var appInfo: [UInt: Value]
    /// The OS information fields (1.2.840.113635.100.8.7) by context tag number.
    public var osInfo: [UInt: Value]
    /// The key's access-control policy as the Secure Enclave encodes it (1.2.840.113635.100.8.6, since iOS 27 and
    /// macOS 27; ``KeyAccessControlExtension``), when the certificate has one of the known shape.
    public var keyAccessControlPolicy: [UInt8]?

    /// The OS version ("17.2.1"), from OS info tag 1400.
    public var osVersion: String? { osInfo[1400]?.textual }
    /// The OS build ("21C66"), from OS info tag 1403.
    public var osBuild: String? { osInfo[1403]?.textual }
    /// The App ID the device wrote, from app info tag 1204.
    public var appIdentifier: String? { appInfo[1204]?.textual }

    public init(appInfo: [UInt: Value] = [:], osInfo: [UInt: Value] = [:], keyAccessControlPolicy: [UInt8]? = nil) {
        self.appInfo = appInfo
        self.osInfo = osInfo
        self.keyAccessControlPolicy = keyAccessControlPolicy
    }

    /// Decodes one extension value leniently: fields that do not fit the expected shape are skipped.
    static func fields(fromExtensionValue value: ArraySlice<UInt8>?) -> [UInt: Value] {
        guard let value, let root = try? DER.parse(value), case .constructed(let children) = root.content else {
            return [:]
        }
        var fields: [UInt: Value] = [:]
        for child in children where child.identifier.tagClass == .contextSpecific {
            guard case .constructed(let inner) = child.content, let element = inner.first(where: { _ in true }) else {
                continue
            }
            // Dispatched on the tag, so that a field of the other type costs no thrown parse error.
            switch element.identifier {
            case .integer:
                if let integer = try? Int64(derEncoded: element) {
                    fields[child.identifier.tagNumber] = .integer(integer)
                }
            case .octetString:
                if let octets = try? ASN1OctetString(derEncoded: element) {
                    let bytes = Array(octets.bytes)
                    if let text = String(validating: bytes, as: UTF8.self), text.allSatisfy({ !$0.isASCII || $0.asciiValue! >= 0x20 }) {
                        fields[child.identifier.tagNumber] = .text(text)
                    } else {
                        fields[child.identifier.tagNumber] = .bytes(bytes)
                    }
                }
            default:
                continue
            }
        }
        return fields
    }
}

extension CertificateInformation.Value {
    fileprivate var textual: String? {
        if case .text(let text) = self { return text }
        return nil
    }
}
