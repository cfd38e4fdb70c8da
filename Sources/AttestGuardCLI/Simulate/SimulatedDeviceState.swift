import Crypto
import Foundation

/// What `attestguard simulate device` keeps between its calls, in a file the caller names: the simulated key's
/// private material, what it was attested for, and the counter of its last assertion. Written with mode 0600,
/// since the private key signs assertions the server accepts from this key.
struct SimulatedDeviceState: Codable {
    /// The format of the file.
    var version = 1
    var appId: String
    var userId: String
    var deviceId: String
    /// The key id as the app sends it (standard base64).
    var keyId: String
    /// The key's P-256 private key, PEM.
    var privateKeyPEM: String
    /// The counter of the last assertion signed (0 before the first).
    var counter: UInt32

    static func read(_ path: String) throws -> SimulatedDeviceState {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw SimulatedDeviceStateError("cannot read the state file \(path); create it with `attestguard simulate device attest --state \(path) ...`")
        }
        let state: SimulatedDeviceState
        do {
            state = try JSONDecoder().decode(SimulatedDeviceState.self, from: data)
        } catch {
            throw SimulatedDeviceStateError("\(path) is not a simulate device state file: \(error)")
        }
        guard state.version == 1 else { throw SimulatedDeviceStateError("\(path) has state format \(state.version); this build reads 1") }
        return state
    }

    func write(_ path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(self)
        let url = URL(fileURLWithPath: path)
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: temporary.path, contents: data, attributes: [.posixPermissions: 0o600]) else {
            throw SimulatedDeviceStateError("cannot write the state file \(path)")
        }
        // Replaced in one rename, so that an interrupted call never leaves half a key behind.
        guard rename(temporary.path, url.path) == 0 else {
            try? FileManager.default.removeItem(at: temporary)
            throw SimulatedDeviceStateError("cannot write the state file \(path)")
        }
    }

    func privateKey() throws -> P256.Signing.PrivateKey {
        do {
            return try P256.Signing.PrivateKey(pemRepresentation: privateKeyPEM)
        } catch {
            throw SimulatedDeviceStateError("the state file's privateKeyPEM is not a P-256 private key")
        }
    }
}

/// A state file that cannot be read or written; the message says which and what to do.
struct SimulatedDeviceStateError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
