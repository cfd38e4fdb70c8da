public import AttestVocabulary
public import Foundation

/// A key that is no longer active, and when it stopped being (``RetiredKeyStore``).
public struct RetiredKey: Sendable, Hashable {
    /// A place in the (`changedAt`, app, key id) order the store pages by.
    public struct Cursor: Sendable, Hashable {
        public var changedAt: Date
        public var appId: String
        public var keyId: Data

        /// The start of the order at `changedAt`: every key retired at that instant or later comes after it.
        public init(from changedAt: Date) {
            self.init(changedAt: changedAt, appId: "", keyId: Data())
        }

        public init(changedAt: Date, appId: String, keyId: Data) {
            self.changedAt = changedAt
            self.appId = appId
            self.keyId = keyId
        }
    }

    public var appId: String
    public var keyId: Data
    /// `revoked` or `superseded`.
    public var status: KeyStatus
    public var changedAt: Date

    public init(appId: String, keyId: Data, status: KeyStatus, changedAt: Date) {
        self.appId = appId
        self.keyId = keyId
        self.status = status
        self.changedAt = changedAt
    }

    /// This key's place in the order.
    public var cursor: Cursor { Cursor(changedAt: changedAt, appId: appId, keyId: keyId) }
}
