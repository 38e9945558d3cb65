/// Each environment's limits as read from the catalog, so that checking a request reads no
/// file. Another process's change (the command line's) is seen within ``recheckInterval``: the
/// catalog's change counter is read at most that often; this process's changes at once.
final class LimitsCache: Sendable {
    /// How often, in milliseconds, the catalog is asked whether anything changed.
    static let recheckInterval: Int64 = 1000

    private struct State {
        var counter: Int64 = .min
        /// When the counter was last read; `nil` before the first time.
        var checked: Int64?
        var limits: [EnvironmentKey: EnvironmentLimits] = [:]
    }

    private let state = ReadWriteLock(State())

    /// The limits of `key`, reading the catalog through `load` when they are not known or may
    /// have changed; `counter` reads the catalog's change counter.
    func limits(
        _ key: EnvironmentKey, now: Int64, counter: () throws -> Int64, load: () throws -> EnvironmentLimits
    ) throws -> EnvironmentLimits {
        if let known = state.read({ state in state.checked.map { now - $0 < Self.recheckInterval } == true ? state.limits[key] : nil }) {
            return known
        }
        let current = try counter()
        if let known = state.write({ state -> EnvironmentLimits? in
            if state.counter != current { state = State(counter: current) }
            state.checked = now
            return state.limits[key]
        }) {
            return known
        }
        let loaded = try load()
        state.write { state in
            if state.counter == current { state.limits[key] = loaded }
        }
        return loaded
    }

    /// Forgets everything known, after this process changed a limit.
    func invalidate() {
        state.write { $0 = State() }
    }
}
