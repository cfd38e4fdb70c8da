/// Keeps velocity reads and flushes apart: a read sums the store and this process's pending increments, and a
/// flush moves increments from one to the other; were they to interleave, a read could miss or double a batch.
/// Many reads run at once; a flush waits for them and holds new ones back for its one store write.
actor FlushGate {
    private var readers = 0
    private var writing = false
    private var waitingWriters: [CheckedContinuation<Void, Never>] = []
    private var waitingReaders: [CheckedContinuation<Void, Never>] = []

    func beginRead() async {
        if writing || !waitingWriters.isEmpty {
            // Counted in by endWrite when it lets the waiting readers go.
            await withCheckedContinuation { waitingReaders.append($0) }
        } else {
            readers += 1
        }
    }

    func endRead() {
        readers -= 1
        if readers == 0, !writing, !waitingWriters.isEmpty {
            writing = true
            waitingWriters.removeFirst().resume()
        }
    }

    func beginWrite() async {
        if readers == 0, !writing {
            writing = true
        } else {
            // Set to writing by whoever lets this writer go.
            await withCheckedContinuation { waitingWriters.append($0) }
        }
    }

    func endWrite() {
        if !waitingReaders.isEmpty {
            writing = false
            readers += waitingReaders.count
            let released = waitingReaders
            waitingReaders = []
            released.forEach { $0.resume() }
        } else if !waitingWriters.isEmpty {
            waitingWriters.removeFirst().resume()
        } else {
            writing = false
        }
    }
}
