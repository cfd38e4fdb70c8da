import AttestGuardStore
import Synchronization
import Testing

@Suite("The series id memo")
struct SeriesIdMemoTests {
    @Test("an id asked again is the one computed before, without computing it again")
    func remembers() {
        let computed = Mutex(0)
        let memo = SeriesIdMemo<String>(capacity: 4) { series in
            computed.withLock { $0 += 1 }
            return Array(series.utf8)
        }
        #expect(memo.id(of: "a") == Array("a".utf8))
        #expect(memo.id(of: "a") == Array("a".utf8))
        #expect(memo.id(of: "b") == Array("b".utf8))
        #expect(computed.withLock { $0 } == 2)
        #expect(memo.count == 2)
    }

    @Test("it holds at most its capacity, and an id forgotten is computed again the same")
    func bounded() {
        let computed = Mutex(0)
        let memo = SeriesIdMemo<Int>(capacity: 3) { series in
            computed.withLock { $0 += 1 }
            return [UInt8(series)]
        }
        for series in 0..<10 {
            #expect(memo.id(of: series) == [UInt8(series)])
            #expect(memo.count <= 3)
        }
        #expect(computed.withLock { $0 } == 10)
        #expect(memo.id(of: 0) == [0])
    }

    @Test("many tasks asking at once get the same ids")
    func concurrent() async {
        let memo = SeriesIdMemo<Int>(capacity: 16) { [UInt8($0 % 256), UInt8($0 / 256)] }
        await withTaskGroup(of: Bool.self) { group in
            for task in 0..<8 {
                group.addTask {
                    (0..<2_000).allSatisfy { step in
                        let series = (step * 7 + task) % 40
                        return memo.id(of: series) == [UInt8(series % 256), UInt8(series / 256)]
                    }
                }
            }
            for await allEqual in group { #expect(allEqual) }
        }
        #expect(memo.count <= 16)
    }
}
