/// Where one item of an app's review queue stands: opened by a `review` verdict of a chosen action, claimed by an
/// analyst, decided (approved or rejected), or expired undecided. `open` and `claimed` items are the queue.
public enum ReviewItemStatus: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// Waiting for an analyst.
    case open
    /// An analyst took it; another may take it over once the claim is ``claimHoldSeconds`` old.
    case claimed
    /// An analyst found the subject legitimate: the subject is labelled `legitimate`.
    case approved
    /// An analyst found the subject fraudulent: the subject is labelled `fraud`.
    case rejected
    /// Nobody decided it before its expiry.
    case expired

    /// How long a claim keeps other analysts from deciding or claiming an item: 30 minutes.
    public static let claimHoldSeconds = 1_800

    /// Whether the item is still in the queue (open or claimed).
    public var isPending: Bool { self == .open || self == .claimed }

    public var description: String { rawValue }
}

/// An analyst's word on a review item: `approve` labels its subject `legitimate`, `reject` labels it `fraud`.
public enum ReviewDecision: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    case approve
    case reject

    /// The label the decision gives the item's subject.
    public var label: FraudLabel {
        switch self {
        case .approve: .legitimate
        case .reject: .fraud
        }
    }

    /// The status the decision leaves the item in.
    public var status: ReviewItemStatus {
        switch self {
        case .approve: .approved
        case .reject: .rejected
        }
    }

    /// The source of the labels review decisions write: one source, so that a later review of a subject replaces
    /// an earlier one.
    public static let labelSource = "review"

    public var description: String { rawValue }
}

/// What a rejection may do beyond its label, to the item's key: the same deeds as the rules' actions of these names.
public enum ReviewFollowUp: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// Revokes the item's key.
    case revokeKey = "revoke_key"
    /// Sets DeviceCheck bit 1 for the item's key.
    case setDeviceCheckBit1 = "set_devicecheck_bit1"

    /// The outcome an item shows for a follow-up asked for that has not run (yet).
    public static let notRun = "not run"

    public var description: String { rawValue }
}

/// Which items of an app's queue a listing reads.
public enum ReviewItemFilter: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Open or claimed, unexpired: the queue, oldest first.
    case pending
    case open
    case claimed
    /// Approved or rejected, latest first.
    case decided
    case approved
    case rejected
    case expired
    /// Every item, latest first.
    case all

    /// Whether the listing runs oldest first (the queue's order) rather than latest first.
    public var oldestFirst: Bool { self == .pending || self == .open || self == .claimed }

    public var description: String { rawValue }
}
