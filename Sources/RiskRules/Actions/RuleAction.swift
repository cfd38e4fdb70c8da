public import AttestVocabulary

/// What a rule's `then:` does once the rule fires: the action's name in the rule language.
public enum RuleActionName: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// Sets DeviceCheck bit 1 (by convention: the device is flagged) for the request's key, device and user: filed at
    /// once, sent to Apple with the next device token presented for one of them.
    case setDeviceCheckBit1 = "set_devicecheck_bit1"
    /// Revokes the request's App Attest key: its next assertion is refused with `key_revoked`.
    case revokeKey = "revoke_key"
    /// Adds a value (usually `request.ip`) to a run-time list for a while.
    case addToList = "add_to_list"
    /// Labels the request's key, user or device as fraud or legitimate, as `POST /v1/labels` does.
    case label

    public var description: String { rawValue }
}

/// One action a fired rule asks for, with its arguments evaluated for the request: what the engine runs after the
/// verdict (enforce mode) or records as what it would have run (monitor mode, the shadow rule set). In JSON (`rules
/// explain --json`) it is `{"action": "add_to_list", "description": "add_to_list(\"blocked_ips\", \"203.0.113.9\", 1h)"}`.
public struct RuleAction: Sendable, Hashable, Encodable, CustomStringConvertible {
    /// The action and its arguments.
    public enum Detail: Sendable, Hashable {
        case setDeviceCheckBit1
        case revokeKey
        /// `value` is the evaluated text, before the list's normalisation (`203.0.113.7/24` becomes `203.0.113.0/24`).
        case addToList(list: String, value: String, lifetimeSeconds: Double)
        case label(FraudLabel, source: String, subject: LabelSubjectKind)
    }

    public var detail: Detail

    public init(_ detail: Detail) {
        self.detail = detail
    }

    public var name: RuleActionName {
        switch detail {
        case .setDeviceCheckBit1: .setDeviceCheckBit1
        case .revokeKey: .revokeKey
        case .addToList: .addToList
        case .label: .label
        }
    }

    private enum CodingKeys: String, CodingKey { case action, description }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .action)
        try container.encode(description, forKey: .description)
    }

    /// The action as a rule would write it, with its values: `add_to_list("blocked_ips", "203.0.113.9", 1d)`.
    public var description: String {
        switch detail {
        case .setDeviceCheckBit1: "set_devicecheck_bit1"
        case .revokeKey: "revoke_key"
        case .addToList(let list, let value, let lifetime): "add_to_list(\"\(list)\", \"\(value)\", \(RuleValueFormat.duration(lifetime)))"
        case .label(let label, let source, let subject): "label(\(label), \"\(source)\", \(subject))"
        }
    }
}
