extension CloudStore {
    // MARK: - Processes sharing a database

    /// Starts telling other processes of this one's commits and hearing theirs, where the
    /// backend shares its database.
    func startCrossProcess() {
        backend.crossProcess?.start { [weak self] event in self?.heard(event) }
    }

    /// Whether this process hears the others, when it shares a database; `true` on SQLite.
    public var hearsOtherProcesses: Bool {
        guard let crossProcess = backend.crossProcess else { return true }
        return crossProcess.isListening
    }

    /// What another process said changed: cached schemas to drop, waiters to wake.
    private func heard(_ event: CrossProcessEvent) {
        switch event {
        case .schemaChanged(let name):
            forgetSchema(named: name)
        case .notified(let tokens):
            wakeNotificationListeners(tokens)
        case .recheckAll:
            forgetSchema(named: nil)
            for listener in recheckListeners.withLock({ $0 }) { listener() }
        }
    }
}
