import Foundation

// The counts gate's workloads (`scripts/counts`, the `counts` stage of scripts/test): run under
// `valgrind --tool=callgrind`, which counts the instructions and allocations of the measured windows
// (`MeasuredWindow`) and compares them per iteration with Benchmarks/Thresholds/WORKLOAD.json.
// Built in debug with everything else (`swift build --build-tests`); run by hand it only runs the
// workload, uncounted:
//
//   latchkey-counts WORKLOAD [--iterations N] [--warm-up N] [--vectors PATH]
//
// WORKLOAD: login, registration, cbor-decode, vectors-verify. Last line on standard output, for
// scripts/counts: {"workload": …, "iterations": N, "windows": W}.

struct Usage: Error, CustomStringConvertible {
    let description: String
}

func option(_ name: String, in arguments: [String]) throws -> String? {
    guard let index = arguments.firstIndex(of: name) else { return nil }
    guard index + 1 < arguments.count else { throw Usage(description: "\(name) needs a value") }
    return arguments[index + 1]
}

func count(_ name: String, in arguments: [String], default value: Int) throws -> Int {
    guard let text = try option(name, in: arguments) else { return value }
    guard let number = Int(text), number >= 0 else { throw Usage(description: "\(name) must be a whole number, not \(text)") }
    return number
}

/// Runs the workload on a `SerialTaskExecutor` while the main thread waits on a semaphore. An `async` top-level
/// main would park the main thread in libdispatch's `dispatch_main`, whose `sigsuspend` valgrind 3.19
/// (Debian 12's) cannot run: it dies of a SIGSEGV of its own before the first instruction is counted.
func runBlocking(_ body: @escaping @Sendable () async throws -> String) throws -> String {
    final class Outcome: @unchecked Sendable {
        var result: Result<String, any Error> = .failure(Usage(description: "the workload did not finish"))
    }
    let outcome = Outcome()
    let done = DispatchSemaphore(value: 0)
    let executor = SerialTaskExecutor()
    Task.detached {
        do {
            outcome.result = .success(try await withTaskExecutorPreference(executor) { try await body() })
        } catch {
            outcome.result = .failure(error)
        }
        done.signal()
    }
    done.wait()
    return try outcome.result.get()
}

let arguments = Array(CommandLine.arguments.dropFirst())
do {
    guard let workload = arguments.first else {
        throw Usage(description: "usage: latchkey-counts login|registration|cbor-decode|vectors-verify [--iterations N] [--warm-up N] [--vectors PATH]")
    }
    let warmUp = try count("--warm-up", in: arguments, default: 2)
    let line: String
    if let kind = CeremonyWorkload.Kind(rawValue: workload) {
        let iterations = try count("--iterations", in: arguments, default: 10)
        line = try runBlocking {
            let windows = try await CeremonyWorkload(kind: kind, iterations: iterations, warmUp: warmUp).run()
            return #"{"workload": "\#(workload)", "iterations": \#(iterations), "windows": \#(windows)}"#
        }
    } else if let kind = VectorWorkload.Kind(rawValue: workload) {
        let iterations = try count("--iterations", in: arguments, default: kind == .cborDecode ? 20 : 1)
        let path = try option("--vectors", in: arguments)
            ?? ProcessInfo.processInfo.environment["LATCHKEY_VECTORS"] ?? "../shared/vectors/webauthn-vectors.json"
        line = try runBlocking {
            let windows = try await VectorWorkload(kind: kind, vectorsPath: path, passes: iterations).run()
            return #"{"workload": "\#(workload)", "iterations": \#(iterations), "windows": \#(windows)}"#
        }
    } else {
        throw Usage(description: "unknown workload \(workload): login, registration, cbor-decode or vectors-verify")
    }
    print(line)
} catch {
    FileHandle.standardError.write(Data("latchkey-counts: \(error)\n".utf8))
    exit(1)
}
