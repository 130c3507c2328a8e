import Metrics

/// Counters of ceremonies started, succeeded and failed (with the failure code), for dashboards and
/// alerts: a spike of `challenge_mismatch` or `sign_count_regression` is worth a look.
struct CeremonyMetrics: Sendable {
    /// Where the counters live; the application passes its Prometheus registry's factory, so nothing
    /// depends on a process-wide bootstrap.
    let factory: any MetricsFactory

    enum Ceremony: String, Sendable {
        case registration
        case addPasskey = "add_passkey"
        case login
    }

    func started(_ ceremony: Ceremony) {
        Counter(label: "latchkey_ceremonies_started_total", dimensions: [("ceremony", ceremony.rawValue)], factory: factory).increment()
    }

    func succeeded(_ ceremony: Ceremony) {
        Counter(label: "latchkey_ceremonies_succeeded_total", dimensions: [("ceremony", ceremony.rawValue)], factory: factory).increment()
    }

    func failed(_ ceremony: Ceremony, reason: String) {
        Counter(label: "latchkey_ceremonies_failed_total", dimensions: [("ceremony", ceremony.rawValue), ("reason", reason)], factory: factory).increment()
    }
}
