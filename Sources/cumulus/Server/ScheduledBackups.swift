import CloudStore
import Dispatch
import Logging

/// The backups the server takes of itself in the background (`--backup-schedule`), one every
/// interval, off the request path; each deletes the oldest beyond `--backup-keep` once written.
/// Of several servers on one PostgreSQL database, one at a time takes them.
final class ScheduledBackups {
    private let store: CloudStore
    private let logger: Logger
    /// Made only when there is a schedule: a dispatch source released without ever being
    /// resumed stops the process.
    private var timer: (any DispatchSourceTimer)?

    init(store: CloudStore, logger: Logger) {
        self.store = store
        self.logger = logger
    }

    /// Starts the schedule, the first backup one interval after start; does nothing without one.
    func start(every interval: Duration?) {
        guard let interval, timer == nil else { return }
        let (store, logger) = (store, logger)
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "cumulus.backups", qos: .utility))
        timer.setEventHandler {
            do {
                // With several servers on one PostgreSQL database, one takes each backup.
                guard let backup = try store.takeScheduledBackup() else {
                    logger.debug("another server on the database takes the scheduled backups")
                    return
                }
                logger.info("backed up to \(backup.name) (\(backup.bytes) bytes)")
            } catch {
                logger.error("the scheduled backup failed: \(error)")
            }
        }
        let seconds = Int(interval.components.seconds)
        timer.schedule(deadline: .now() + .seconds(seconds), repeating: .seconds(seconds), leeway: .seconds(max(1, seconds / 100)))
        timer.resume()
        self.timer = timer
    }

    /// Stops the schedule.
    func stop() { timer?.cancel() }
}
