extension AssertedRequest {
    /// The request as the JSON object its `Codable` form is, keys sorted, absent members left out: what a consumed
    /// challenge keeps of the request its assertion was for (`consumed_request`). Written by hand (``JSONText``)
    /// because every accepted assertion writes it and a `JSONEncoder` per assertion was a visible share of the
    /// route's CPU (`Benchmarks/results/2026-11-26-assertion-route-peer.md`).
    var jsonText: String {
        var output: [UInt8] = []
        output.reserveCapacity(160 + 48 * (attributes?.count ?? 0))
        output.append(UInt8(ascii: "{"))
        var first = true
        func key(_ name: String) {
            JSONText.appendKey(name, first: first, to: &output)
            first = false
        }
        if let action {
            key("action")
            JSONText.appendString(action, to: &output)
        }
        if let attributes {
            key("attributes")
            output.append(UInt8(ascii: "{"))
            // `.sortedKeys` orders keys by their UTF-8 bytes, as this does.
            for (index, name) in attributes.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }).enumerated() {
                JSONText.appendKey(name, first: index == 0, to: &output)
                switch attributes[name]! {
                case .string(let text): JSONText.appendString(text, to: &output)
                case .number(let number): JSONText.appendNumber(number, to: &output)
                case .bool(let flag): JSONText.appendBool(flag, to: &output)
                }
            }
            output.append(UInt8(ascii: "}"))
        }
        if let bodySha256 {
            key("bodySha256")
            JSONText.appendString(bodySha256, to: &output)
        }
        if let ip {
            key("ip")
            JSONText.appendString(ip.text, to: &output)
        }
        key("method")
        JSONText.appendString(method, to: &output)
        key("path")
        JSONText.appendString(path, to: &output)
        output.append(UInt8(ascii: "}"))
        return String(decoding: output, as: UTF8.self)
    }
}
