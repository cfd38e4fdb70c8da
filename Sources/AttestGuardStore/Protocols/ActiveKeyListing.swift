public import Foundation

/// The app's active keys a page at a time, in key id order, for a job that visits every one (the nightly sweep).
public protocol ActiveKeyListing: Sendable {
    /// At most `limit` active keys of `appId` whose id sorts after `after` (from the first when `nil`), by key id.
    func activeKeys(appId: String, after: Data?, limit: Int) async throws -> [ActiveKey]
}

/// One active key and the subjects it was registered with: enough to score it as a verdict about the key would.
public struct ActiveKey: Sendable, Hashable {
    public var keyId: Data
    public var userId: String
    public var deviceId: String?

    public init(keyId: Data, userId: String, deviceId: String?) {
        self.keyId = keyId
        self.userId = userId
        self.deviceId = deviceId
    }
}
