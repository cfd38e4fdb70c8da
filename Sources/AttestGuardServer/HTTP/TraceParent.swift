/// The trace id of a W3C Trace Context `traceparent` header (`00-<32 hex trace id>-<16 hex parent id>-<2 hex
/// flags>`), which a gateway sends so that AttestGuard's log lines join its trace. Anything else, an all-zero id
/// or the forbidden version `ff` gives none: the header is the caller's, and only a well-formed id is logged.
enum TraceParent {
    static func traceId(_ header: String) -> String? {
        let fields = header.split(separator: "-", omittingEmptySubsequences: false)
        guard fields.count >= 4, fields[0].count == 2, fields[1].count == 32, fields[2].count == 16, fields[3].count == 2,
            fields[..<4].allSatisfy({ $0.utf8.allSatisfy(isLowerHex) }), fields[0] != "ff",
            // Version 00 has exactly four fields; later versions may append more.
            fields[0] != "00" || fields.count == 4,
            fields[1].utf8.contains(where: { $0 != UInt8(ascii: "0") }), fields[2].utf8.contains(where: { $0 != UInt8(ascii: "0") })
        else { return nil }
        return String(fields[1])
    }

    private static func isLowerHex(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
    }
}
