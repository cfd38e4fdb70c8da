import Synchronization
import AttestGuardStore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An exclusive advisory lock (`flock`) on `<database>.lock`, held for the life of the process's store, so that a
/// second server on the same SQLite file refuses to start instead of corrupting counters. The kernel drops it
/// when the process dies.
final class ProcessFileLock: Sendable {
    let path: String
    private let descriptor: Mutex<Int32?>

    init(path: String) throws {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw StoreError(.invalidConfiguration, "cannot open lock file \(path): errno \(errno)")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            throw StoreError(
                .locked,
                "another AttestGuard process uses this SQLite database (\(path) is locked); the embedded store is single-process: configure PostgreSQL to run several"
            )
        }
        self.path = path
        self.descriptor = Mutex(descriptor)
    }

    /// Releases the lock; later calls do nothing.
    func release() {
        descriptor.withLock { descriptor in
            guard let open = descriptor else { return }
            flock(open, LOCK_UN)
            close(open)
            descriptor = nil
        }
    }

    deinit {
        release()
    }
}
