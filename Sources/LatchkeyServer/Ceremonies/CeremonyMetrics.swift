import Metrics

/// Counters of ceremonies started, succeeded and failed (with the failure code), for dashboards and
/// alerts: a spike of `challenge_mismatch` or `sign_count_regression` is worth a look.
struct CeremonyMetrics: Sendable {
    enum Ceremony: String, Sendable, CaseIterable {
        case registration
        case addPasskey = "add_passkey"
        case login
    }

    /// Where the counters live; the application passes its Prometheus registry's factory, so nothing
    /// depends on a process-wide bootstrap.
    private let factory: any MetricsFactory
    /// The started and succeeded counters, made once: making a counter looks it up in the registry
    /// under a lock and validates its labels, which every login would otherwise pay twice. Failures
    /// (rarer, and labelled by reason) make theirs when they happen.
    private let startedCounters: [Ceremony: Counter]
    private let succeededCounters: [Ceremony: Counter]

    init(factory: any MetricsFactory) {
        self.factory = factory
        func counters(_ label: String) -> [Ceremony: Counter] {
            Dictionary(uniqueKeysWithValues: Ceremony.allCases.map {
                ($0, Counter(label: label, dimensions: [("ceremony", $0.rawValue)], factory: factory))
            })
        }
        startedCounters = counters("latchkey_ceremonies_started_total")
        succeededCounters = counters("latchkey_ceremonies_succeeded_total")
    }

    func started(_ ceremony: Ceremony) {
        startedCounters[ceremony]?.increment()
    }

    func succeeded(_ ceremony: Ceremony) {
        succeededCounters[ceremony]?.increment()
    }

    /// A login let through although its counter did not grow (`--sign-count warn`): worth an alert.
    /// A synced passkey's counter was reset to 0 (it moved to a provider that does not count).
    func counterReset() {
        Counter(label: "latchkey_counter_resets_total", factory: factory).increment()
    }

    func possibleClone() {
        Counter(label: "latchkey_possible_clones_total", factory: factory).increment()
    }

    /// A passkey's backup state (BS) changed at a login: a device-bound passkey became synced, or a synced
    /// one stopped syncing. Rare, and worth knowing about in aggregate.
    func backupStateChanged(nowBackedUp: Bool) {
        Counter(label: "latchkey_backup_state_changes_total", dimensions: [("to", nowBackedUp ? "synced" : "device_only")], factory: factory).increment()
    }

    func failed(_ ceremony: Ceremony, reason: String) {
        Counter(label: "latchkey_ceremonies_failed_total", dimensions: [("ceremony", ceremony.rawValue), ("reason", reason)], factory: factory).increment()
    }
}
