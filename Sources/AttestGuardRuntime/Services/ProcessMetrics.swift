import Foundation
package import Prometheus
#if canImport(Glibc)
import Glibc
#endif

/// The process's own resource use in Prometheus's standard names, read from `/proc/self` each time `/metrics` is
/// scraped: `process_cpu_seconds_total`, `process_resident_memory_bytes`, `process_open_fds`, `process_max_fds`;
/// and `process_start_time_seconds`, which never changes, read once. No mirrored package provides them; off Linux
/// they are not published.
package final class ProcessMetrics: Sendable {
    private let cpuSeconds: CumulativeCounter
    private let residentMemory: Gauge
    private let openFileDescriptors: Gauge
    private let maximumFileDescriptors: Gauge

    package init?(registry: PrometheusCollectorRegistry) {
        #if os(Linux)
        let cpuCounter = registry.makeCounter(descriptor: .standard("process_cpu_seconds_total", help: "Total user and system CPU time spent in seconds."))
        cpuSeconds = CumulativeCounter { cpuCounter.increment(by: $0) }
        residentMemory = registry.makeGauge(descriptor: .standard("process_resident_memory_bytes", help: "Resident memory size in bytes."))
        openFileDescriptors = registry.makeGauge(descriptor: .standard("process_open_fds", help: "Number of open file descriptors."))
        maximumFileDescriptors = registry.makeGauge(descriptor: .standard("process_max_fds", help: "Maximum number of open file descriptors."))
        let startTime = registry.makeGauge(descriptor: .standard("process_start_time_seconds", help: "Start time of the process since unix epoch in seconds."))
        if let stat = Self.stat(), let bootTime = Self.bootTime(), let ticksPerSecond = Self.ticksPerSecond {
            startTime.set(bootTime + Double(stat.startTicks) / ticksPerSecond)
        }
        #else
        return nil
        #endif
    }

    /// Reads `/proc` and sets the metrics; a value that cannot be read keeps its last one.
    package func update() {
        #if os(Linux)
        if let stat = Self.stat(), let ticksPerSecond = Self.ticksPerSecond {
            cpuSeconds.advance(to: Double(stat.userTicks + stat.systemTicks) / ticksPerSecond)
            residentMemory.set(Double(stat.residentPages) * Double(sysconf(Int32(_SC_PAGESIZE))))
        }
        if let descriptors = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") {
            // The listing's own descriptor is among them while it is read.
            openFileDescriptors.set(Double(max(descriptors.count - 1, 0)))
        }
        var limit = rlimit()
        if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 {
            maximumFileDescriptors.set(Double(limit.rlim_cur))
        }
        #endif
    }

    #if os(Linux)
    /// This process's `/proc/self/stat`.
    private static func stat() -> ProcStat? {
        (try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8)).flatMap(ProcStat.init(parsing:))
    }

    /// The clock ticks of `/proc`'s times per second.
    private static var ticksPerSecond: Double? {
        let ticks = sysconf(Int32(_SC_CLK_TCK))
        return ticks > 0 ? Double(ticks) : nil
    }

    /// When the machine booted, in seconds since 1970 (`btime` in `/proc/stat`).
    private static func bootTime() -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8) else { return nil }
        return text.split(separator: "\n").first { $0.hasPrefix("btime ") }.flatMap { Double($0.dropFirst(6)) }
    }
    #endif
}

/// The fields of `/proc/<pid>/stat` the process metrics need (proc(5)). The command name, field 2, is in
/// parentheses and may itself hold spaces and parentheses: the fields after it are counted from its last `)`.
package struct ProcStat: Equatable {
    package var userTicks: Int
    package var systemTicks: Int
    package var startTicks: Int
    package var residentPages: Int
}

extension ProcStat {
    init?(parsing text: String) {
        guard let close = text.lastIndex(of: ")") else { return nil }
        // Field 3 (state) is the first after the name; utime is field 14, stime 15, starttime 22, rss 24.
        let fields = text[text.index(after: close)...].split(separator: " ", omittingEmptySubsequences: true)
        func field(_ number: Int) -> Int? {
            let index = number - 3
            return fields.indices.contains(index) ? Int(fields[index].trimmingCharacters(in: .whitespacesAndNewlines)) : nil
        }
        guard let user = field(14), let system = field(15), let start = field(22), let rss = field(24) else { return nil }
        self.init(userTicks: user, systemTicks: system, startTicks: start, residentPages: rss)
    }
}

extension MetricNameDescriptor {
    /// A whole metric name (no namespace or unit to join to it) with its HELP text.
    static func standard(_ name: String, help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(metricName: name, unitName: "", helpText: help)
    }
}
