import Foundation
import Synchronization
import Testing
import XKCDModel

/// Transfers wait for libcurl on threads of their own, a few per site at once: more than there
/// are cores, and more than Swift's task threads.
@Suite struct OffTheTaskPoolTests {
    final class Arrivals: Sendable {
        let count = Atomic(0)
        let everyone = DispatchSemaphore(value: 0)
    }

    /// Each call blocks until every other one has started: they all get there only when each runs
    /// on a thread of its own at the same time (run on the task threads instead, two of six met
    /// on this 2-core machine and the rest waited out the guard).
    @Test func blockingWorkRunsBeyondTheCores() async {
        let width = ProcessInfo.processInfo.activeProcessorCount * 2 + 2
        let arrivals = Arrivals()
        let met = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<width {
                group.addTask {
                    await offTheTaskPool {
                        if arrivals.count.add(1, ordering: .relaxed).newValue == width {
                            for _ in 0..<width { arrivals.everyone.signal() }
                        }
                        // The hang guard only: on a loaded machine the last thread may start late.
                        return arrivals.everyone.wait(timeout: .now() + .seconds(600)) == .success
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(met == Array(repeating: true, count: width), "\(width) calls did not all run at once within 600 s")
    }

    @Test func errorsComeThroughTyped() async {
        struct Refused: Error, Equatable {}
        await #expect(throws: Refused()) {
            try await offTheTaskPool { () throws(Refused) -> Int in throw Refused() }
        }
    }
}
