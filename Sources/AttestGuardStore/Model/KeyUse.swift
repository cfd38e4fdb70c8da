public import Foundation

/// That a verdict named a key, and when: what keeps the key's receipt in the refresh schedule. Written behind the
/// request path in batches (``ReceiptScheduleStore/recordKeyUse(_:)``).
public struct KeyUse: Sendable, Hashable {
    public var appId: String
    public var keyId: Data
    public var at: Date

    public init(appId: String, keyId: Data, at: Date) {
        self.appId = appId
        self.keyId = keyId
        self.at = at
    }
}

/// What one round of ``ReceiptScheduleStore/parkDormantReceipts(unusedSince:at:limit:)`` took out of the schedule.
public struct DormantParking: Sendable, Hashable {
    /// Receipts parked, per app.
    public var parkedPerApp: [String: Int]

    public init(parkedPerApp: [String: Int] = [:]) {
        self.parkedPerApp = parkedPerApp
    }

    /// Receipts parked in all apps.
    public var parked: Int { parkedPerApp.values.reduce(0, +) }
}

extension Array where Element == KeyUse {
    /// The latest use of each key, ordered by app and key id, so that concurrent writers lock keys in one order.
    package var latestPerKey: [KeyUse] {
        var latest: [KeyRef: KeyUse] = [:]
        for use in self {
            let ref = KeyRef(appId: use.appId, keyId: use.keyId)
            if let known = latest[ref], known.at >= use.at { continue }
            latest[ref] = use
        }
        return latest.values.sorted { left, right in
            left.appId != right.appId ? left.appId < right.appId : left.keyId.lexicographicallyPrecedes(right.keyId)
        }
    }
}

/// A key's identity within the store.
private struct KeyRef: Hashable {
    var appId: String
    var keyId: Data
}
