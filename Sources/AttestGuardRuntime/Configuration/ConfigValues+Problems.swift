import Synchronization

extension ConfigValues {
    /// Collects the problems of one load in the order they are found, instead of stopping at the first.
    package final class Problems: Sendable {
        private let list = Mutex<[ConfigurationError]>([])

        package init() {}

        /// The problems found so far, in the order found.
        package var all: [ConfigurationError] { list.withLock { $0 } }

        package func append(_ problem: ConfigurationError) { list.withLock { $0.append(problem) } }
    }

    /// Reports `problem`: thrown when nothing collects problems, else collected and `fallback` returned in place of
    /// the value.
    func report<Value>(_ problem: ConfigurationError, instead fallback: Value) throws -> Value {
        guard let problems else { throw problem }
        problems.append(problem)
        return fallback
    }

    /// Reports `problem`, as ``report(_:instead:)`` does, where no value stands in.
    func report(_ problem: ConfigurationError) throws {
        try report(problem, instead: ())
    }

    /// Reads a whole part of the configuration (an app, the Apple credentials): a problem it throws is reported and
    /// `fallback` stands in for the part, so that the parts after it are read and checked too.
    func recovering<Value>(_ fallback: Value, _ read: () throws -> Value) throws -> Value {
        do {
            return try read()
        } catch let problem as ConfigurationError {
            return try report(problem, instead: fallback)
        }
    }
}
