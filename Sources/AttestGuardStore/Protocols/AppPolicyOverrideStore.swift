/// Where run-time app policy changes are kept, shared by every server process on the store.
public protocol AppPolicyOverrideStore: Sendable {
    /// Every app's stored override.
    func appPolicyOverrides() async throws -> [AppPolicyOverride]

    /// Replaces the app's override if its row is still at `expectedRevision` (0: no row), writing revision
    /// `expectedRevision + 1`; an empty override is stored as an empty row, so that revisions never go back. Returns
    /// false, changing nothing, when another write came first.
    func replaceAppPolicyOverride(_ override: AppPolicyOverride, expectedRevision: Int64) async throws -> Bool
}
