import Dispatch
import Synchronization
import Testing

@testable import CloudStore

@Suite struct KeyedRateLimiterTests {
    @Test func aBucketSpendsItsBurstThenEarnsAtItsRate() {
        let limiter = KeyedRateLimiter<String>(ratePerSecond: 2, burst: 3)
        let start: Int64 = 1_800_000_000_000
        #expect((0..<3).map { _ in limiter.take("a", now: start) } == [nil, nil, nil])
        #expect(limiter.take("a", now: start) == 1, "a token comes back in half a second: the wait rounds up to 1 s")
        #expect(limiter.take("b", now: start) == nil, "keys are apart")
        #expect(limiter.take("a", now: start + 499) == 1)
        #expect(limiter.take("a", now: start + 500) == nil)
        #expect(limiter.take("a", now: start + 500) == 1, "a refusal spends nothing, and the next token is half a second off")
        #expect((0..<3).map { _ in limiter.take("a", now: start + 2_000) } == [nil, nil, nil], "a rested bucket holds its burst, no more")
        #expect(limiter.take("a", now: start + 2_000) != nil)
        limiter.reset("a")
        #expect(limiter.take("a", now: start + 2_000) == nil, "a reset bucket starts full")
    }

    @Test func aCallsOwnRateAndTheWaitItAnswers() {
        let limiter = KeyedRateLimiter<String>(ratePerSecond: 1000, burst: 1)
        let now: Int64 = 1_800_000_000_000
        #expect(limiter.take("slow", ratePerSecond: 0.1, burst: 2, now: now) == nil)
        #expect(limiter.take("slow", ratePerSecond: 0.1, burst: 2, now: now) == nil)
        #expect(limiter.take("slow", ratePerSecond: 0.1, burst: 2, now: now) == 10)
        #expect(limiter.take("slow", ratePerSecond: 0.1, burst: 2, now: now + 4_000) == 6)
        #expect(limiter.take("rare", ratePerSecond: 0.000_001, burst: 1, now: now) == nil)
        #expect(limiter.take("rare", ratePerSecond: 0.000_001, burst: 1, now: now) == 86_400, "the wait is bounded to a day")
    }

    @Test func threadsSpendingOneBucketAtOnceGetExactlyItsBurst() async {
        let limiter = KeyedRateLimiter<String>(ratePerSecond: 0.001, burst: 1_000)
        let allowed = Atomic(0)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<500 where limiter.take("busy", now: 1_800_000_000_000) == nil {
                allowed.add(1, ordering: .relaxed)
            }
        }
        #expect(allowed.load(ordering: .relaxed) == 1_000)
    }
}
