public import Foundation
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// What sends the client's HTTP requests: a `URLSession` (``URLSessionTransport``) in an app, anything that can
/// answer a `URLRequest` in tests.
public protocol HTTPTransport: Sendable {
    /// Sends `request` as it is and returns the response's body and head; throws only when no response came.
    func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse)
}

/// A `URLSession` as the client's transport. It uses the completion-handler API, which iOS 14 has, and cancels the
/// task when the calling task is cancelled.
public struct URLSessionTransport: HTTPTransport {
    public let session: URLSession

    public init(session: URLSession = .shared) {
        self.session = session
    }

    public func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        let handle = TaskHandle()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<(Data, HTTPURLResponse), any Error>) in
                let task = session.dataTask(with: request) { data, response, error in
                    if let error {
                        continuation.resume(throwing: error)
                    } else if let response = response as? HTTPURLResponse {
                        continuation.resume(returning: (data ?? Data(), response))
                    } else {
                        continuation.resume(throwing: URLError(.badServerResponse))
                    }
                }
                handle.start(task)
            }
        } onCancel: {
            handle.cancel()
        }
    }

    /// The data task of one call, shared with the cancellation handler, which may run before the task exists.
    private final class TaskHandle: @unchecked Sendable {
        private let lock = NSLock()
        private var task: URLSessionDataTask?
        private var cancelled = false

        func start(_ task: URLSessionDataTask) {
            lock.lock()
            self.task = task
            let cancelled = self.cancelled
            lock.unlock()
            if cancelled { task.cancel() }
            task.resume()
        }

        func cancel() {
            lock.lock()
            cancelled = true
            let task = self.task
            lock.unlock()
            task?.cancel()
        }
    }
}
