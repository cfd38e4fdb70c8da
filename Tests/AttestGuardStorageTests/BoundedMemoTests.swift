import AttestGuardStore
import Synchronization
import Testing

@Suite("The bounded memo")
struct BoundedMemoTests {
    @Test("a result asked again is the one computed before, without computing it again")
    func remembers() {
        let computed = Mutex(0)
        let memo = BoundedMemo<String, [UInt8]>(capacity: 4) { series in
            computed.withLock { $0 += 1 }
            return Array(series.utf8)
        }
        #expect(memo.value(for: "a") == Array("a".utf8))
        #expect(memo.value(for: "a") == Array("a".utf8))
        #expect(memo.value(for: "b") == Array("b".utf8))
        #expect(computed.withLock { $0 } == 2)
        #expect(memo.count == 2)
    }

    @Test("it holds at most its capacity in each of two generations, and a result forgotten is computed again the same")
    func bounded() {
        let computed = Mutex(0)
        let memo = BoundedMemo<Int, [UInt8]>(capacity: 3) { series in
            computed.withLock { $0 += 1 }
            return [UInt8(series)]
        }
        for series in 0..<10 {
            #expect(memo.value(for: series) == [UInt8(series)])
            #expect(memo.count <= 6)
        }
        #expect(computed.withLock { $0 } == 10)
        #expect(memo.value(for: 0) == [0])
        #expect(computed.withLock { $0 } == 11, "0 was two generations back: dropped, computed again")
    }

    @Test("a result still asked for survives a turnover: found in the previous generation, it moves to the current one")
    func keepsWhatIsAskedFor() {
        let computed = Mutex(0)
        let memo = BoundedMemo<Int, [UInt8]>(capacity: 2) { series in
            computed.withLock { $0 += 1 }
            return [UInt8(series)]
        }
        for series in [0, 1, 2, 0, 3, 4, 0, 5, 6, 0] {
            #expect(memo.value(for: series) == [UInt8(series)])
        }
        #expect(computed.withLock { $0 } == 7, "0 is computed once however many turnovers pass")
        #expect(memo.count <= 4)
    }

    @Test("many tasks asking at once get the same results")
    func concurrent() async {
        let memo = BoundedMemo<Int, [UInt8]>(capacity: 16) { [UInt8($0 % 256), UInt8($0 / 256)] }
        await withTaskGroup(of: Bool.self) { group in
            for task in 0..<8 {
                group.addTask {
                    (0..<2_000).allSatisfy { step in
                        let series = (step * 7 + task) % 40
                        return memo.value(for: series) == [UInt8(series % 256), UInt8(series / 256)]
                    }
                }
            }
            for await allEqual in group { #expect(allEqual) }
        }
        #expect(memo.count <= 32)
    }
}
