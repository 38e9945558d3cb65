import Foundation

/// Polls `condition` until it holds: for what another thread or process does in its own time
/// (a listener hearing a notification, an index build finishing). The timeout asserts nothing
/// about speed; it only makes a condition that never holds fail the test instead of hanging it.
/// - Parameters:
///   - timeout: Seconds to wait before giving up; generous, for a busy machine.
///   - interval: Microseconds between two checks.
///   - condition: What must come to hold.
/// - Throws: ``TestFailure`` when `condition` still does not hold after `timeout`, or what
///   `condition` throws.
public func waitUntil(timeout: TimeInterval = 5, pollingEvery interval: useconds_t = 5_000, _ condition: () throws -> Bool) throws {
    let deadline = Date().addingTimeInterval(timeout)
    while try !condition() {
        guard Date() < deadline else { throw TestFailure("the condition never held") }
        usleep(interval)
    }
}
