/// This process's heartbeat among the processes sharing a database, and how many beat lately:
/// each takes that share of every environment's request rate.
protocol ProcessHeartbeat: Sendable {
    /// This process's id: random per start.
    var id: String { get }
    /// Milliseconds between beats.
    var interval: Int64 { get }
    /// How many processes beat lately, this one included.
    var liveProcesses: Int { get }
    /// Beats now: records this process and counts the live ones.
    func beat() throws
    /// Stops beating and removes this process's row.
    func stop()
}
