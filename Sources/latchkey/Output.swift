import Foundation

/// Where the command-line tool writes: results to stdout, messages for people to stderr.
enum Output {
    static func printJSON(_ object: Any) {
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else {
            printError("latchkey: could not encode the result as JSON.")
            return
        }
        FileHandle.standardOutput.write(data + Data("\n".utf8))
    }

    /// A value as JSON, its times in ISO 8601 as the server writes them (`2026-11-25T10:00:00Z`).
    static func printEncodable<T: Encodable>(_ value: T) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        FileHandle.standardOutput.write(try encoder.encode(value) + Data("\n".utf8))
    }

    /// One line on standard output, written at once (not held in a buffer until exit).
    static func printLine(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    static func printError(_ message: String) {
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }
}
