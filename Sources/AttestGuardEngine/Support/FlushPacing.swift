/// Paces the statements of one write-behind flush so that together they take about `spread`: the first starts at
/// once and each later one after an equal pause. A flush sent back to back would hold a database core for as long
/// as all its statements take, and every request waiting behind them would see that in its latency.
///
/// The pause is a plain sleep: a flush whose task is cancelled (shutdown) sends the rest without pausing.
struct FlushPacing {
    private let pause: Duration
    private var started = false

    /// Pacing for `statements` statements spread over `spread` (zero: no pauses).
    init(statements: Int, over spread: Duration) {
        pause = statements > 1 ? spread / (statements - 1) : .zero
    }

    /// Waits until the next statement is due: at once for the first, after the pause for each later one.
    mutating func nextStatement() async {
        if started && pause > .zero { try? await Task.sleep(for: pause) }
        started = true
    }
}
