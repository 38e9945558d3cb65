import CloudStore
import Dispatch
import Logging

/// The server's periodic upkeep, off the request path, once an hour and once shortly after
/// start: forgetting tombstones and record versions past their retention, removing notifications no poll took in
/// time, collecting asset blobs no record holds.
final class Maintenance {
    private let store: CloudStore
    private let logger: Logger
    private let timer: any DispatchSourceTimer

    init(store: CloudStore, logger: Logger) {
        self.store = store
        self.logger = logger
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "cumulus.maintenance", qos: .utility))
    }

    /// Starts the schedule.
    func start() {
        let (store, logger) = (store, logger)
        timer.setEventHandler {
            do {
                let forgotten = try store.forgetExpiredTombstones()
                if forgotten > 0 { logger.info("forgot \(forgotten) tombstones past their retention") }
            } catch {
                logger.error("forgetting expired tombstones failed: \(error)")
            }
            do {
                let forgotten = try store.forgetExpiredVersions()
                if forgotten > 0 { logger.info("forgot \(forgotten) record versions past their retention") }
            } catch {
                logger.error("forgetting expired record versions failed: \(error)")
            }
            do {
                let expired = try store.removeExpiredNotifications()
                if expired > 0 { logger.info("removed \(expired) notifications no poll took in time") }
            } catch {
                logger.error("removing expired notifications failed: \(error)")
            }
            do {
                let collected = try store.collectUnreferencedAssets()
                if collected > 0 { logger.info("collected \(collected) asset blobs no record holds") }
            } catch {
                logger.error("collecting asset blobs failed: \(error)")
            }
        }
        timer.schedule(deadline: .now() + .seconds(60), repeating: .seconds(3600), leeway: .seconds(60))
        timer.resume()
    }

    /// Stops the schedule.
    func stop() { timer.cancel() }
}
