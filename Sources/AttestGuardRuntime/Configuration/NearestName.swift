/// The valid name an unknown one most likely meant: the nearest by edit distance (ignoring case, a swap of two
/// neighbouring characters counting as one edit), suggested only when close: at most one edit in four characters,
/// and never more than three.
package enum NearestName {
    /// The candidate nearest to `name`, or `nil` when none is close (or two are equally near).
    package static func nearest(to name: String, among candidates: some Sequence<String>) -> String? {
        let limit = min(3, max(1, name.count / 4))
        var best: String?
        var bestDistance = Int.max
        var tied = false
        for candidate in candidates where candidate != name {
            let distance = editDistance(name.lowercased(), candidate.lowercased())
            if distance < bestDistance {
                (best, bestDistance, tied) = (candidate, distance, false)
            } else if distance == bestDistance, candidate != best {
                tied = true
            }
        }
        guard bestDistance <= limit, !tied else { return nil }
        return best
    }

    /// The optimal-string-alignment distance: insertions, deletions, substitutions and swaps of neighbours.
    package static func editDistance(_ lhs: String, _ rhs: String) -> Int {
        let a = Array(lhs)
        let b = Array(rhs)
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var previous2 = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], previous2[j - 2] + 1)
                }
            }
            (previous2, previous, current) = (previous, current, previous2)
        }
        return previous[b.count]
    }
}
