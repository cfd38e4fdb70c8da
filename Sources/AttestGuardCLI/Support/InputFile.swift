import ArgumentParser
import Foundation
import Crypto
import X509
import SwiftASN1
import AppleReceipts
import AttestCore
import AttestGuardWire

/// Reads the files and values the `verify` commands take, turning every problem into a usage error.
enum InputFile {
    /// The bytes of a file that holds either base64 text or the raw object.
    static func object(_ path: String, name: String) throws -> [UInt8] {
        let raw = try bytes(path, name: name)
        let text = String(decoding: raw, as: UTF8.self).filter { !$0.isWhitespace }
        if !text.isEmpty, text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+/=-_".contains($0)) }),
            let decoded = Base64Text.decodeEither(text).map(Array.init)
        {
            return decoded
        }
        return raw
    }

    /// The exact bytes of a file.
    static func bytes(_ path: String, name: String) throws -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ValidationError("cannot read \(name) file \(path)")
        }
        return Array(data)
    }

    /// A P-256 public key from a PEM file (a public key or a certificate).
    static func publicKey(_ path: String) throws -> P256.Signing.PublicKey {
        let pem = String(decoding: try bytes(path, name: "public key"), as: UTF8.self)
        if let key = try? P256.Signing.PublicKey(pemRepresentation: pem) {
            return key
        }
        if let certificate = try? Certificate(pemEncoded: pem), let key = P256.Signing.PublicKey(certificate.publicKey) {
            return key
        }
        throw ValidationError("\(path) holds no P-256 public key or certificate in PEM")
    }

    /// The certificates of a PEM file (one or more).
    static func certificates(_ path: String) throws -> [Certificate] {
        let pem = String(decoding: try bytes(path, name: "root"), as: UTF8.self)
        guard let certificates = try? PEMDocument.parseMultiple(pemString: pem).map({ try Certificate(pemDocument: $0) }),
            !certificates.isEmpty
        else {
            throw ValidationError("\(path) holds no PEM certificate")
        }
        return certificates
    }

    /// An instant given as ISO-8601 UTC, or now.
    static func instant(_ text: String?) throws -> Date {
        guard let text else { return Date() }
        guard let date = RFC3339.parse(text) else {
            throw ValidationError("--at \"\(text)\" is not an ISO-8601 UTC time such as 2024-01-27T16:15:40Z")
        }
        return date
    }
}
