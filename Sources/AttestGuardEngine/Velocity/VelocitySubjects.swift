public import Foundation
import AttestVocabulary

/// What velocity is counted per (the `<per>`), with the subject's value in one request.
public struct VelocitySubjects: Sendable, Hashable {
    public var key: Data?
    public var user: String?
    public var device: String?
    public var ip: ClientIP?

    public init(key: Data? = nil, user: String? = nil, device: String? = nil, ip: ClientIP? = nil) {
        self.key = key
        self.user = user
        self.device = device
        self.ip = ip
    }
}
