import Testing
@testable import latchkey

/// When the `OTEL_*` variables turn `latchkey serve`'s tracing on, and which values it refuses rather than
/// let swift-otel stop the process (Tests/System/Tracing runs the real exporter).
@Suite("latchkey serve's tracing variables")
struct TracingBootstrapTests {
    @Test("off without an exporter or an endpoint, whatever else is set")
    func offByDefault() {
        #expect(!TracingBootstrap.isRequested([:]))
        #expect(!TracingBootstrap.isRequested(["OTEL_SERVICE_NAME": "latchkey", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"]))
        #expect(!TracingBootstrap.isRequested(["OTEL_EXPORTER_OTLP_ENDPOINT": "  "]))
        #expect(!TracingBootstrap.isRequested(["OTEL_LOGS_EXPORTER": "otlp", "OTEL_METRICS_EXPORTER": "otlp"]))
    }

    @Test("on with OTEL_TRACES_EXPORTER or an OTLP endpoint")
    func onWhenAsked() {
        #expect(TracingBootstrap.isRequested(["OTEL_TRACES_EXPORTER": "otlp"]))
        #expect(TracingBootstrap.isRequested(["OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"]))
        #expect(TracingBootstrap.isRequested(["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:4318/v1/traces"]))
        #expect(TracingBootstrap.isRequested(["OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318", "OTEL_SDK_DISABLED": "false"]))
    }

    @Test("OTEL_SDK_DISABLED=true and OTEL_TRACES_EXPORTER=none win over an endpoint")
    func offWhenDisabled() {
        let endpoint = "http://127.0.0.1:4318"
        #expect(!TracingBootstrap.isRequested(["OTEL_EXPORTER_OTLP_ENDPOINT": endpoint, "OTEL_SDK_DISABLED": "TRUE"]))
        #expect(!TracingBootstrap.isRequested(["OTEL_TRACES_EXPORTER": "otlp", "OTEL_SDK_DISABLED": "true"]))
        #expect(!TracingBootstrap.isRequested(["OTEL_EXPORTER_OTLP_ENDPOINT": endpoint, "OTEL_TRACES_EXPORTER": "none"]))
    }

    @Test("what swift-otel implements passes")
    func accepted() {
        #expect(TracingBootstrap.refusal([
            "OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json", "OTEL_TRACES_SAMPLER": "parentbased_traceidratio",
            "OTEL_TRACES_SAMPLER_ARG": "0.25", "OTEL_PROPAGATORS": "tracecontext",
        ]) == nil)
        #expect(TracingBootstrap.refusal(["OTEL_EXPORTER_OTLP_PROTOCOL": "grpc", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/protobuf"]) == nil)
    }

    @Test("what swift-otel would stop the process on is refused, naming the variable", arguments: [
        ("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"), ("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "grpc"), ("OTEL_TRACES_EXPORTER", "console"),
        ("OTEL_TRACES_EXPORTER", "jaeger"), ("OTEL_TRACES_SAMPLER", "jaeger_remote"), ("OTEL_TRACES_SAMPLER", "xray"),
        ("OTEL_PROPAGATORS", "tracecontext,baggage"), ("OTEL_PROPAGATORS", "b3"),
    ])
    func refused(variable: String, value: String) {
        let refusal = TracingBootstrap.refusal([variable: value])
        #expect(refusal?.hasPrefix(variable) == true, "\(refusal ?? "nil")")
    }

    @Test("a ratio outside 0…1 is refused (swift-otel's precondition)")
    func ratio() {
        #expect(TracingBootstrap.refusal(["OTEL_TRACES_SAMPLER": "traceidratio", "OTEL_TRACES_SAMPLER_ARG": "2"]) != nil)
        #expect(TracingBootstrap.refusal(["OTEL_TRACES_SAMPLER": "traceidratio", "OTEL_TRACES_SAMPLER_ARG": "half"]) != nil)
    }
}
