public import Foundation

extension FileManager {
    /// Linux stand-in for Apple's `containerURL(forSecurityApplicationGroupIdentifier:)`: there are no App Groups
    /// here, so every group has no container, as for a process whose entitlements do not list the group.
    public func containerURL(forSecurityApplicationGroupIdentifier groupIdentifier: String) -> URL? {
        nil
    }
}
