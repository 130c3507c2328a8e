import Foundation
import LatchkeyServer
import Logging
import OTel
import ServiceLifecycle
import Tracing

/// `latchkey serve`'s tracing (docs/operating.md, Tracing): OpenTelemetry spans exported over OTLP/HTTP
/// by swift-otel, configured by the standard `OTEL_*` variables.
///
/// Off unless asked for: tracing is on when `OTEL_SDK_DISABLED` is not `true` and either
/// `OTEL_TRACES_EXPORTER` names an exporter other than `none` or an OTLP endpoint is set
/// (`OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`). swift-otel's own default (on, to
/// localhost:4318) would send spans nobody asked for to whatever listens there.
///
/// Only traces are bootstrapped (`OTel.makeTracingBackend`, never `OTel.bootstrap`): Latchkey's logs and
/// metrics stay its own, whatever `OTEL_LOGS_EXPORTER` or `OTEL_METRICS_EXPORTER` say.
enum TracingBootstrap {
    /// Whether `environment` turns tracing on (see above).
    static func isRequested(_ environment: [String: String]) -> Bool {
        if value("OTEL_SDK_DISABLED", in: environment) == "true" { return false }
        if let exporter = value("OTEL_TRACES_EXPORTER", in: environment) { return exporter != "none" }
        return value("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", in: environment) != nil || value("OTEL_EXPORTER_OTLP_ENDPOINT", in: environment) != nil
    }

    /// Refuses, with a sentence, the values swift-otel would stop the process on (it calls `fatalError`
    /// for a gRPC protocol without its trait, and for samplers and propagators it does not implement) or
    /// that Latchkey does not offer. Nil: nothing to refuse.
    static func refusal(_ environment: [String: String]) -> String? {
        if let exporter = value("OTEL_TRACES_EXPORTER", in: environment), !["otlp", "none"].contains(exporter) {
            return "OTEL_TRACES_EXPORTER is \(exporter): Latchkey exports traces with otlp (or none)"
        }
        let protocolName = value("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", in: environment) != nil
            ? "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL" : "OTEL_EXPORTER_OTLP_PROTOCOL"
        if let wire = value(protocolName, in: environment), !["http/protobuf", "http/json"].contains(wire) {
            return "\(protocolName) is \(wire): Latchkey exports OTLP over HTTP only, http/protobuf or http/json"
        }
        let samplers = ["always_on", "always_off", "traceidratio", "parentbased_always_on", "parentbased_always_off", "parentbased_traceidratio"]
        if let sampler = value("OTEL_TRACES_SAMPLER", in: environment) {
            guard samplers.contains(sampler) else {
                return "OTEL_TRACES_SAMPLER is \(sampler): use one of \(samplers.joined(separator: ", "))"
            }
            if sampler.hasSuffix("traceidratio"), let argument = value("OTEL_TRACES_SAMPLER_ARG", in: environment) {
                guard let ratio = Double(argument), ratio >= 0, ratio <= 1 else {
                    return "OTEL_TRACES_SAMPLER_ARG is \(argument): a ratio sampler takes a number from 0 to 1"
                }
            }
        }
        if let propagators = value("OTEL_PROPAGATORS", in: environment) {
            let named = propagators.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            if let other = named.first(where: { $0 != "tracecontext" && $0 != "none" }) {
                return "OTEL_PROPAGATORS names \(other): Latchkey reads and writes W3C trace context only (OTEL_PROPAGATORS=tracecontext)"
            }
        }
        return nil
    }

    /// Bootstraps the process's tracer when `environment` asks for it, and returns the service that
    /// exports its spans (run it before the server and stop it after, so the last spans are sent); nil
    /// when tracing is off. swift-otel's own diagnostics go to `logger`, without the values it read (an
    /// `OTEL_EXPORTER_OTLP_HEADERS` may carry a collector's key).
    static func bootstrap(environment: [String: String], logger: Logger) throws(ServerConfiguration.Invalid) -> (any Service)? {
        guard isRequested(environment) else { return nil }
        if let refusal = refusal(environment) { throw ServerConfiguration.Invalid(description: refusal) }
        var configuration = OTel.Configuration.default
        configuration.serviceName = "latchkey"  // OTEL_SERVICE_NAME wins
        configuration.logs.enabled = false
        configuration.metrics.enabled = false
        var diagnostics = logger
        diagnostics.handler = WithoutSettingValues(wrapping: logger.handler)
        configuration.diagnosticLogger = .custom(diagnostics)
        configuration.diagnosticLogLevel = .warning  // OTEL_LOG_LEVEL wins
        do {
            let backend = try OTel.makeTracingBackend(configuration: configuration)
            InstrumentationSystem.bootstrap(backend.factory)
            return backend.service
        } catch {
            throw ServerConfiguration.Invalid(description: "the OTEL_* variables do not make a tracer: \(error)")
        }
    }

    /// A variable's value, trimmed and in lower case; nil when unset or empty (the OpenTelemetry
    /// specification treats an empty value as unset).
    private static func value(_ name: String, in environment: [String: String]) -> String? {
        guard let raw = environment[name]?.trimmingCharacters(in: .whitespaces), !raw.isEmpty else { return nil }
        return name.hasSuffix("_ENDPOINT") ? raw : raw.lowercased()
    }
}

/// swift-otel's diagnostics through Latchkey's log handler, less the metadata that repeats what an
/// `OTEL_*` variable held.
private struct WithoutSettingValues: LogHandler {
    var wrapped: any LogHandler
    private static let dropped: Set<String> = ["environment_value", "previous_value", "new_value"]

    init(wrapping handler: any LogHandler) { wrapped = handler }

    var logLevel: Logger.Level {
        get { wrapped.logLevel }
        set { wrapped.logLevel = newValue }
    }

    var metadata: Logger.Metadata {
        get { wrapped.metadata }
        set { wrapped.metadata = newValue.filter { !Self.dropped.contains($0.key) } }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { wrapped[metadataKey: key] }
        set { if !Self.dropped.contains(key) { wrapped[metadataKey: key] = newValue } }
    }

    func log(event: LogEvent) {
        var event = event
        event.metadata = event.metadata?.filter { !Self.dropped.contains($0.key) }
        wrapped.log(event: event)
    }
}
