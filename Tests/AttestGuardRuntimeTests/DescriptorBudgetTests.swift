@testable import AttestGuardRuntime
import Testing

@Suite("Descriptor budget: the connection cap leaves descriptors for everything else")
struct DescriptorBudgetTests {
    @Test("a limit that fits keeps server.maxConnections")
    func fits() {
        let budget = DescriptorBudget(descriptorLimit: 65_536, configuredConnections: 1_024, databaseConnections: 20)
        #expect(budget.reserved == 84)
        #expect(budget.connectionCap == 1_024)
        #expect(!budget.isLimitedByDescriptors)
    }

    @Test("a limit that does not fit lowers the cap by the pools and the base reserve", arguments: [
        (1_024, 16, 1_024 - 80), (1_024, 4, 1_024 - 68), (256, 4, 188), (256, 116, 128), (8, 4, 4), (1, 4, 1),
    ])
    func lowered(limit: Int, pools: Int, cap: Int) {
        let budget = DescriptorBudget(descriptorLimit: limit, configuredConnections: 1_024, databaseConnections: pools)
        #expect(budget.connectionCap == cap)
        #expect(budget.isLimitedByDescriptors)
        #expect(budget.reserved <= limit / 2)
    }

    @Test("raising the soft limit never lowers it and never passes the hard limit")
    func raising() {
        let now = DescriptorBudget.raiseSoftDescriptorLimit(toAtLeast: 0)
        #expect(now > 0)
        #expect(DescriptorBudget.raiseSoftDescriptorLimit(toAtLeast: 1) == now)
        let raised = DescriptorBudget.raiseSoftDescriptorLimit(toAtLeast: Int.max / 2)
        #expect(raised >= now)
    }
}
