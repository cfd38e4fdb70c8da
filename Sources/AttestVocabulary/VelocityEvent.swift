public import Foundation

/// What velocity counts (the `<event>` of `velocity.<event>.<per>.<window>`).
public enum VelocityEvent: String, Sendable, CaseIterable {
    case attestations
    case assertions
    case failedVerifications = "failed_verifications"
    case scoreRequests = "score_requests"
    case newKeys = "new_keys"
}

/// What velocity is counted per (the `<per>`), with the subject's value in one request.
public struct VelocitySubjects: Sendable, Hashable {
    public var key: Data?
    public var user: String?
    public var device: String?
    public var ip: String?

    public init(key: Data? = nil, user: String? = nil, device: String? = nil, ip: String? = nil) {
        self.key = key
        self.user = user
        self.device = device
        self.ip = ip
    }

    static let dimensions = ["key", "user", "device", "ip"]
}
