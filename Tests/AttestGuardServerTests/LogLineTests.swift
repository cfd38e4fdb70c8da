import AttestTestSupport
@testable import AttestGuardEngine
@testable import AttestGuardRuntime
@testable import AttestGuardServer
import Foundation
import Logging
import Testing
import AttestGuardWire

@Suite("Logs: one line per record, logfmt or JSON, bounded")
struct LogLineTests {
    static let instant = Date(timeIntervalSince1970: 1_795_677_176.123_2)  // 2026-11-26T07:12:56.123Z (RFC3339: nearest ms)

    static func line(_ format: LogFormat, message: String = "request", _ metadata: Logger.Metadata) -> String {
        LogLineFormatter(format: format).line(time: instant, level: .info, message: message, source: "AttestGuardServer", metadata: metadata)
    }

    @Test("logfmt: bare values stay bare; spaces, =, quotes, newlines, control and non-ASCII characters are quoted")
    func logfmtQuoting() {
        #expect(Self.line(.text, ["status": "200", "path": "/v1/score"])
            == "ts=2026-11-26T07:12:56.123Z level=info msg=request source=AttestGuardServer path=/v1/score status=200")
        let quoted = Self.line(.text, message: "rule reload rejected", [
            "problem": "rules.yaml:4: unknown signal\n  hint: \"did you mean\" a=b", "empty": "", "bell": "a\u{7}b", "name": "café",
            "odd key": "x",
        ])
        #expect(quoted == #"ts=2026-11-26T07:12:56.123Z level=info msg="rule reload rejected" source=AttestGuardServer bell="a\u0007b" empty="" name="café" odd_key=x problem="rules.yaml:4: unknown signal\n  hint: \"did you mean\" a=b""#)
        #expect(!quoted.contains("\n"))
    }

    @Test("JSON: one object per line with ts, level, msg, source and the metadata as string fields")
    func jsonLines() throws {
        let line = Self.line(.json, [
            "problem": "two\nlines \"quoted\" \u{0}", "list": .array(["a", .stringConvertible(3)]), "ts": "a clash",
        ])
        #expect(!line.contains("\n"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String])
        #expect(object["ts"] == "2026-11-26T07:12:56.123Z")
        #expect(object["level"] == "info")
        #expect(object["msg"] == "request")
        #expect(object["source"] == "AttestGuardServer")
        #expect(object["problem"] == "two\nlines \"quoted\" \u{0}")
        #expect(object["list"] == #"["a","3"]"#)
        #expect(object["ts_"] == "a clash")
        #expect(line.hasPrefix(#"{"ts":"2026-11-26T07:12:56.123Z","level":"info","msg":"request","source":"AttestGuardServer","#))
    }

    @Test("a long value is cut at a character boundary and says how much was left out; too many fields are counted")
    func bounded() throws {
        let chain = String(repeating: "é", count: 60_000)  // 120,000 bytes
        for format in LogFormat.allCases {
            let line = Self.line(format, ["chain": .string(chain)])
            #expect(line.utf8.count < 1_300, "\(format)")
            #expect(line.contains("…[118976 more bytes]"), "\(line.suffix(60))")
            var many: Logger.Metadata = [:]
            for index in 0..<100 { many["field\(index)"] = .string(String(repeating: "v", count: 900)) }
            let crowded = Self.line(format, many)
            #expect(crowded.utf8.count <= LogLineFormatter.maximumLineBytes + 64)
            #expect(crowded.contains("truncated_fields"), "\(format)")
        }
        #expect(LogLineFormatter.bounded("short") == "short")
    }

    @Test("timestamps are RFC 3339 in UTC with milliseconds, before 1970 too")
    func timestamps() {
        #expect(RFC3339.format(Self.instant) == "2026-11-26T07:12:56.123Z")
        #expect(RFC3339.format(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00.000Z")
        #expect(RFC3339.format(Date(timeIntervalSince1970: -0.5)) == "1969-12-31T23:59:59.500Z")
    }

    @Test("a line's own metadata wins over the provider's, which wins over the logger's")
    func metadataPrecedence() throws {
        let output = LogLineOutput(collecting: true)
        let provider = Logger.MetadataProvider { ["trace_id": "from-provider", "api_key": "from-provider"] }
        var logger = Logger(label: "test") { _ in LogLineHandler(format: .json, level: .info, metadataProvider: provider, output: output) }
        logger[metadataKey: "request_id"] = "r-1"
        logger[metadataKey: "api_key"] = "from-logger"
        logger.debug("below the level")
        logger.info("request", metadata: ["status": "200", "trace_id": "explicit"])
        let lines = output.lines
        #expect(lines.count == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: String])
        #expect(object["request_id"] == "r-1")
        #expect(object["api_key"] == "from-provider")
        #expect(object["trace_id"] == "explicit")
        #expect(lines[0].hasSuffix("}\n"))
    }

    @Test("traceparent: only a well-formed W3C header gives a trace id")
    func traceParent() {
        #expect(TraceParent.traceId("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01") == "4bf92f3577b34da6a3ce929d0e0e4736")
        #expect(TraceParent.traceId("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-later") == "4bf92f3577b34da6a3ce929d0e0e4736")
        for bad in [
            "", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7", "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01", "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-x",
            "00-4bf92f3577b34da6a3ce929d0e0e473g-00f067aa0ba902b7-01", "00-4bf92f3577b34da6a3ce929d0e0e4736 -00f067aa0ba902b7-01",
        ] {
            #expect(TraceParent.traceId(bad) == nil, "\(bad)")
        }
    }

    @Test("the sampler lets one line a key through per interval and counts the ones held back")
    func sampler() {
        let sampler = LogSampler(interval: 60)
        let start = Self.instant
        #expect(sampler.admit("a", now: start) == 0)
        #expect(sampler.admit("a", now: start.addingTimeInterval(1)) == nil)
        #expect(sampler.admit("a", now: start.addingTimeInterval(59)) == nil)
        #expect(sampler.admit("b", now: start.addingTimeInterval(59)) == 0)
        #expect(sampler.admit("a", now: start.addingTimeInterval(60)) == 2)
        #expect(sampler.admit("a", now: start.addingTimeInterval(61)) == nil)
        #expect(sampler.admit("a", now: start.addingTimeInterval(200)) == 1)
    }

    @Test("durations are logged in milliseconds with three decimals")
    func milliseconds() {
        #expect(ObservabilityMiddleware.milliseconds(.microseconds(412)) == "0.412")
        #expect(ObservabilityMiddleware.milliseconds(.milliseconds(1_234) + .microseconds(5)) == "1234.005")
        #expect(ObservabilityMiddleware.milliseconds(.zero) == "0.000")
    }
}
