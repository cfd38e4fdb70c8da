public import Foundation
import Crypto
#if !canImport(Darwin)
import SecurityStub
#endif

/// Key ids in an App Group's shared container, so that an App Clip's key passes to its full app: the Clip attests a
/// key under the full app's App ID and stores its id here; the full app, installed later with the same App Group,
/// finds the id and signs with the same key instead of attesting a second one (each attestation raises Apple's risk
/// metric for the device, so a Clip and its app attesting apart would double it).
///
/// One small JSON file per user under the container's `AttestGuardClient` folder, named by the SHA-256 of the
/// account (so any account text makes a safe file name), written atomically and, on Apple platforms, readable after
/// the first unlock (`completeUntilFirstUserAuthentication`, as ``KeychainKeyIdStore``'s items). A key id is not a
/// secret: only the Secure Enclave of the device that made the key can sign with it.
///
/// Use it in both targets with the same group (`group.com.example.shop`, in both targets' App Groups entitlement).
/// When the id in the container names a key the full app cannot use (the Clip ran on another device, or the full
/// app was restored from a backup), the first assertion fails with `invalidKey` and the client attests a new key, as
/// with any lost key.
public struct AppGroupKeyIdStore: KeyIdStore {
    /// The folder the entries are kept in.
    public let directory: URL

    /// Why the shared container could not be used.
    public struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
        /// What failed: `container` (no container for the group: the entitlement is missing), `read`, `write` or
        /// `delete`.
        public let operation: String
        /// The underlying error's description.
        public let reason: String

        public var description: String { "App Group key store \(operation) failed: \(reason)" }
    }

    /// Key ids in `directory` (a folder of the App Group's container, or any folder in tests).
    public init(directory: URL) {
        self.directory = directory
    }

    /// Key ids in the shared container of App Group `group` (`group.com.example.shop` on iOS; on macOS a group
    /// prefixed by the team id, `ABCDE12345.com.example.shop`, or an iOS-style one its provisioning profile names).
    /// - Throws: ``Failure`` `container` when the process has no container for the group (the App Groups
    ///   entitlement does not list it; on macOS, which answers a location for any group, when the app cannot make its
    ///   folder there; on Linux, where the Security stand-in has no containers, always).
    public init(appGroup group: String) throws {
        guard let container = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: group) else {
            throw Failure(operation: "container", reason: "no shared container for App Group \(group): add it to the target's App Groups entitlement")
        }
        let directory = container.appendingPathComponent("AttestGuardClient", isDirectory: true)
        #if os(macOS)
        // macOS answers a URL for any group, entitled or not: the folder must be one the app can make there.
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw Failure(operation: "container", reason: "App Group \(group)'s container is not writable (\(error)): add it to the target's App Groups entitlement")
        }
        #endif
        self.init(directory: directory)
    }

    public var location: String { "app-group:\(directory.standardizedFileURL.path)" }

    public func load(account: String) throws -> StoredKey? {
        let file = self.file(for: account)
        let data: Data
        do {
            data = try Data(contentsOf: file)
        } catch {
            if !FileManager.default.fileExists(atPath: file.path) { return nil }
            throw Failure(operation: "read", reason: "\(error)")
        }
        // An entry this version cannot read is treated as absent: the client attests a new key.
        return try? JSONDecoder().decode(StoredKey.self, from: data)
    }

    public func save(_ key: StoredKey, account: String) throws {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            var options: Data.WritingOptions = [.atomic]
            // iOS protects the file until the first unlock; macOS has no file protection classes for apps.
            #if !os(macOS)
            options.insert(.completeFileProtectionUntilFirstUserAuthentication)
            #endif
            try JSONEncoder().encode(key).write(to: file(for: account), options: options)
        } catch {
            throw Failure(operation: "write", reason: "\(error)")
        }
    }

    public func delete(account: String) throws {
        let file = self.file(for: account)
        guard FileManager.default.fileExists(atPath: file.path) else { return }
        do {
            try FileManager.default.removeItem(at: file)
        } catch {
            throw Failure(operation: "delete", reason: "\(error)")
        }
    }

    /// The entry of `account`: the hex SHA-256 of its UTF-8 bytes, so that no account text names another path.
    private func file(for account: String) -> URL {
        let name = SHA256.hash(data: Data(account.utf8)).map { String(format: "%02x", $0) }.joined()
        return directory.appendingPathComponent("\(name).json", isDirectory: false)
    }
}
