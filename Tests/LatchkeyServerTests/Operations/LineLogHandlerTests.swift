import Foundation
import Logging
import NIOConcurrencyHelpers
import Testing
@testable import LatchkeyServer

@Suite("Log lines")
struct LineLogHandlerTests {
    /// Lines a handler writes into a pipe, read back after `body`.
    static func capture(_ body: (Int32) -> Void) throws -> [String] {
        let pipe = Pipe()
        // Read while the body writes: a pipe holds only 64 KiB.
        let output = NIOLockedValueBox(Data())
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            output.withLockedValue { $0 = data }
            done.signal()
        }
        body(pipe.fileHandleForWriting.fileDescriptor)
        try pipe.fileHandleForWriting.close()
        done.wait()
        let data = output.withLockedValue { $0 }
        return String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }

    struct Refusal: Error, CustomStringConvertible {
        var description: String { "refused" }
    }

    @Test("StreamLogHandler's layout: time, level, label, sorted metadata (the event's win), source, message")
    func layout() throws {
        let lines = try Self.capture { descriptor in
            var logger = Logger(label: "latchkey") { LineLogHandler(label: $0, fileDescriptor: descriptor) }
            logger[metadataKey: "hb.request.id"] = "42"
            logger[metadataKey: "path"] = "/old"
            logger.info("request", metadata: ["status": "200", "path": "/api/login/verify", "method": "POST"])
            logger.debug("not written at info")
            logger.error("failed", error: Refusal())
        }
        #expect(lines.count == 2)
        let first = try #require(lines.first)
        #expect(first.range(of: #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d{4} "#, options: .regularExpression) != nil, "\(first)")
        #expect(first.hasSuffix(#" info latchkey: hb.request.id=42 method=POST path=/api/login/verify status=200 [LatchkeyServerTests] request"#), "\(first)")
        let second = try #require(lines.last)
        #expect(second.contains(" error latchkey: error.message=refused error.type=LatchkeyServerTests.LineLogHandlerTests.Refusal hb.request.id=42 path=/old [LatchkeyServerTests] failed"), "\(second)")
    }

    @Test("--log-format json: one object per line with time, level, logger, the metadata, source and message; hostile text stays inside its string (issue 33)")
    func jsonLines() throws {
        let lines = try Self.capture { descriptor in
            var logger = Logger(label: "latchkey") { LineLogHandler(label: $0, fileDescriptor: descriptor, format: .json) }
            logger[metadataKey: "hb.request.id"] = "42"
            logger.info("request", metadata: ["status": "200", "path": "/api/x\n\"}{\u{1b}", "method": "POST", "message": "a metadata key named message"])
            logger.error("failed\nsecond line", error: Refusal())
        }
        #expect(lines.count == 2, "a line break inside a value does not split the line: \(lines)")
        let objects = try lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: String], "\($0)") }
        #expect(objects[0]["level"] == "info" && objects[0]["logger"] == "latchkey" && objects[0]["message"] == "request")
        #expect(objects[0]["path"] == "/api/x\n\"}{\u{1b}" && objects[0]["status"] == "200" && objects[0]["hb.request.id"] == "42")
        #expect(objects[0]["meta.message"] == "a metadata key named message", "a colliding key is prefixed, not lost")
        #expect(objects[0]["source"] == "LatchkeyServerTests")
        #expect(objects[0]["time"]?.range(of: #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d{4}$"#, options: .regularExpression) != nil)
        #expect(objects[1]["message"] == "failed\nsecond line" && objects[1]["error.message"] == "refused")
    }

    @Test("lines written from many threads at once never interleave")
    func concurrentLines() throws {
        let lines = try Self.capture { descriptor in
            let logger = Logger(label: "t") { LineLogHandler(label: $0, fileDescriptor: descriptor) }
            DispatchQueue.concurrentPerform(iterations: 8) { thread in
                for index in 0..<100 {
                    logger.info("line", metadata: ["thread": "\(thread)", "index": "\(index)", "padding": "\(String(repeating: "x", count: 200))"])
                }
            }
        }
        #expect(lines.count == 800)
        let wellFormed = lines.filter { $0.range(of: #"^\S+ info t: index=\d+ padding=x{200} thread=\d \[LatchkeyServerTests\] line$"#, options: .regularExpression) != nil }
        #expect(wellFormed.count == 800)
    }
    /// Collects what `StreamLogHandler` writes.
    final class Collected: TextOutputStream, @unchecked Sendable {
        private let text = NIOLockedValueBox("")
        func write(_ string: String) { text.withLockedValue { $0 += string } }
        var lines: [String] { text.withLockedValue { $0 }.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init) }
    }

    struct Rendered: CustomStringConvertible, Sendable {
        var description: String { "rendered ✓" }
    }

    @Test("the same events give StreamLogHandler's lines, byte for byte after the time")
    func sameAsStreamLogHandler() throws {
        let provider = Logger.MetadataProvider { ["trace.id": "t-1", "path": "/from-provider"] }
        let events: (inout Logger) -> Void = { logger in
            logger.info("no metadata of its own")
            logger[metadataKey: "hb.request.id"] = "42"
            logger[metadataKey: "path"] = "/old"
            logger.info("request", metadata: ["status": "200", "path": "/api/login/verify", "method": "POST", "duration_ms": "0.25"])
            logger.warning("logger's metadata only")
            logger.error("failed", error: Refusal(), metadata: ["detail": "x"])
            logger.notice("values", metadata: [
                "list": ["a", "b"], "map": ["k": "v"], "convertible": .stringConvertible(Rendered()),
                "empty": "", "spaced": "a b", "unicode": "é ✓",
            ])
            logger.critical("ünïcode message ✓ with = and [brackets]")
        }
        for (label, metadataProvider) in [("latchkey", nil), ("", nil), ("with provider", provider)] {
            let stream = Collected()
            var expected = Logger(label: label) { StreamLogHandler(label: $0, stream: stream, metadataProvider: metadataProvider) }
            expected.logLevel = .trace
            events(&expected)
            let lines = try Self.capture { descriptor in
                var logger = Logger(label: label) { LineLogHandler(label: $0, fileDescriptor: descriptor, metadataProvider: metadataProvider) }
                logger.logLevel = .trace
                events(&logger)
            }
            let afterTime: (String) -> Substring = { $0.drop { $0 != " " } }
            #expect(stream.lines.count == 6)
            #expect(lines.map(afterTime) == stream.lines.map(afterTime), "label \(label)")
        }
    }
}
