/// The analysts' console (`console.*`): the key its session cookies are signed with and how long a session lasts.
public struct ConsoleSettings: Sendable {
    /// The shortest session secret accepted, in characters.
    package static let minimumSecretLength = 32

    /// The HMAC key of the session cookies (`console.sessionSecretFile` or `console.sessionSecretEnv`); `nil`: a
    /// random one per process, so that sessions survive neither a restart nor a hop to another process.
    public var sessionSecret: String?
    /// How long a session lasts after login (`console.sessionMinutes`, default 60).
    public var sessionMinutes: Int

    public init(sessionSecret: String? = nil, sessionMinutes: Int = 60) {
        self.sessionSecret = sessionSecret
        self.sessionMinutes = sessionMinutes
    }
}
