public import Foundation

/// The server processes sharing the store, each as it last reported itself.
public protocol ServerProcessStore: Sendable {
    /// Writes (or replaces) the process's record.
    func recordServerProcess(_ record: ServerProcessRecord) async throws

    /// The processes whose record was written at or after `since`, oldest start first.
    func serverProcesses(seenSince since: Date) async throws -> [ServerProcessRecord]

    /// Deletes the records of processes not seen since `before`; returns how many.
    func purgeServerProcesses(seenBefore before: Date) async throws -> Int
}
