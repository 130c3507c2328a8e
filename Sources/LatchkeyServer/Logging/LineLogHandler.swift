import Glibc
import LatchkeyAPI
import Logging
import NIOConcurrencyHelpers

/// The server's log handler: one line per event, on standard error, in swift-log's `StreamLogHandler`
/// layout (`2026-11-21T10:40:00+0000 info latchkey: key=value … [source] message`), or with `.json` one
/// JSON object per line for log stacks: `time`, `level`, `logger`, the metadata (a request's `method`,
/// `path`, `status`, `duration_ms`, `hb.request.id` …), `source`, `message` — a metadata key that would
/// collide with one of those gets a `meta.` prefix.
///
/// Why not `StreamLogHandler` itself: at the default level every request is logged, and its handler cost
/// about 20 µs a line — a twelfth of a login's server CPU. It formats the time with `localtime` and
/// `strftime` for every line, merges and sorts all metadata for every line, and re-renders the logger's
/// metadata whenever it changes, which Hummingbird does for every request (the request id) whether or
/// not anything is logged. This one renders the time once a second, the logger's metadata only when a
/// line is written, and writes each line with a single `write(2)`, so lines from different threads never
/// interleave.
public struct LineLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    private let label: String
    private let fileDescriptor: Int32
    private let format: ServerConfiguration.LogFormat

    /// A handler writing to standard error (or another open file descriptor).
    public init(
        label: String, fileDescriptor: Int32 = 2, metadataProvider: Logger.MetadataProvider? = nil,
        format: ServerConfiguration.LogFormat = .logfmt
    ) {
        self.label = label
        self.fileDescriptor = fileDescriptor
        self.metadataProvider = metadataProvider
        self.format = format
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        if format == .json {
            Self.writeLine(jsonLine(event), to: fileDescriptor)
            return
        }
        // The line is assembled as bytes in one buffer: string interpolation and `+=` on `String` made
        // a temporary string for every piece.
        var line: [UInt8] = []
        line.reserveCapacity(256)
        line.append(contentsOf: LogClock.shared.timestamp().utf8)
        line.append(UInt8(ascii: " "))
        line.append(contentsOf: event.level.rawValue.utf8)
        if !label.isEmpty {
            line.append(UInt8(ascii: " "))
            line.append(contentsOf: label.utf8)
        }
        line.append(UInt8(ascii: ":"))
        for (key, value) in renderedMetadata(event) {
            line.append(UInt8(ascii: " "))
            line.append(contentsOf: key.utf8)
            line.append(UInt8(ascii: "="))
            Self.append(value, to: &line)
        }
        line.append(contentsOf: " [".utf8)
        line.append(contentsOf: event.source.utf8)
        line.append(contentsOf: "] ".utf8)
        line.append(contentsOf: event.message.description.utf8)
        line.append(UInt8(ascii: "\n"))
        Self.writeLine(line, to: fileDescriptor)
    }

    /// The keys a JSON line has of its own.
    private static let jsonFields: Set<String> = ["time", "level", "logger", "source", "message"]

    /// The event as one JSON object and a line break, written by the API's own `JSONWriter` (escaping
    /// included), so that a path or a message cannot break the line or the object.
    private func jsonLine(_ event: LogEvent) -> [UInt8] {
        var json = JSONWriter()
        json.object { json in
            json.member("time", LogClock.shared.timestamp())
            json.member("level", event.level.rawValue)
            json.member("logger", label)
            for (key, value) in renderedMetadata(event) {
                json.member(Self.jsonFields.contains(key) ? "meta." + key : key, Self.text(value))
            }
            json.member("source", event.source)
            json.member("message", event.message.description)
        }
        return json.bytes + [UInt8(ascii: "\n")]
    }

    /// A value as swift-log renders it (`description`); a string as it is.
    private static func text(_ value: Logger.Metadata.Value) -> String {
        if case .string(let text) = value { return text }
        return value.description
    }

    /// The logger's, the provider's and the event's metadata (later ones win), sorted by key.
    private func renderedMetadata(_ event: LogEvent) -> [(key: String, value: Logger.Metadata.Value)] {
        let provided = metadataProvider?.get() ?? [:]
        let explicit = event.metadata ?? [:]
        guard provided.isEmpty, event.error == nil else {
            var merged = metadata
            merged.merge(provided) { $1 }
            merged.merge(explicit) { $1 }
            if let error = event.error {
                merged["error.message"] = "\(error)"
                merged["error.type"] = "\(String(reflecting: type(of: error)))"
            }
            return merged.sorted { $0.key < $1.key }
        }
        // A request's line: the logger's metadata (the request id) and the event's. Listing the two side
        // by side costs less than merging one dictionary into a copy of the other.
        var pairs: [(key: String, value: Logger.Metadata.Value)] = []
        pairs.reserveCapacity(metadata.count + explicit.count)
        for (key, value) in metadata where explicit[key] == nil { pairs.append((key, value)) }
        for (key, value) in explicit { pairs.append((key, value)) }
        pairs.sort { $0.key < $1.key }
        return pairs
    }

    /// A value as swift-log renders it (`description`); a string, nearly every value here, as it is.
    private static func append(_ value: Logger.Metadata.Value, to line: inout [UInt8]) {
        switch value {
        case .string(let text): line.append(contentsOf: text.utf8)
        default: line.append(contentsOf: value.description.utf8)
        }
    }

    /// The whole line in one call where the kernel allows it; the rest after a partial write.
    private static func writeLine(_ line: [UInt8], to fileDescriptor: Int32) {
        line.withUnsafeBufferPointer { bytes in
            var offset = 0
            while offset < bytes.count, let base = bytes.baseAddress {
                let written = write(fileDescriptor, base + offset, bytes.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0 && errno == EINTR {
                    continue
                } else {
                    return // nowhere to report a failure to write the log
                }
            }
        }
    }
}

/// The local time as `%Y-%m-%dT%H:%M:%S%z`, rendered once per second for every thread that logs.
final class LogClock: Sendable {
    static let shared = LogClock()

    private let cache = NIOLockedValueBox<(second: time_t, text: String)>((-1, ""))

    func timestamp() -> String {
        let now = time(nil)
        return cache.withLockedValue { cached in
            if cached.second != now { cached = (now, Self.render(now)) }
            return cached.text
        }
    }

    private static func render(_ second: time_t) -> String {
        var seconds = second
        var parts = tm()
        guard localtime_r(&seconds, &parts) != nil else { return "<unknown>" }
        var buffer = [CChar](repeating: 0, count: 64)
        let length = strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%S%z", &parts)
        return String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
