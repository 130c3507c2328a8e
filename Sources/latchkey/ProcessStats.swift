import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// CPU time and memory of other processes on this machine, from /proc: what the benchmark charges to
/// the server.
enum ProcessStats {
    /// User + system CPU seconds of `pid` so far (0 when it is gone).
    static func seconds(of pid: Int32) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")")
        else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After the command name: state is field 3; utime and stime are fields 14 and 15.
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// User + system CPU seconds of this process so far, to the microsecond (`getrusage`; /proc's ticks
    /// are 10 ms, too coarse for a few seconds of commits).
    static func ownCPUSeconds() -> Double {
        var usage = rusage()
        guard getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage) == 0 else { return 0 }
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    /// CPU seconds of the calling thread so far (`CLOCK_THREAD_CPUTIME_ID`).
    static func threadCPUSeconds() -> Double {
        var time = timespec()
        guard clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time) == 0 else { return 0 }
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// Resident memory of `pid` now and at its peak, in bytes (VmRSS and VmHWM).
    static func residentMemory(of pid: Int32) -> (now: Int, peak: Int) {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return (0, 0) }
        func kilobytes(_ field: String) -> Int {
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }) else { return 0 }
            return (Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0) * 1024
        }
        return (kilobytes("VmRSS"), kilobytes("VmHWM"))
    }

    /// The processes whose command name is `name` (e.g. every PostgreSQL backend: `postgres`).
    static func processes(named name: String) -> [Int32] {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
        return entries.compactMap { entry in
            guard let pid = Int32(entry),
                  let command = try? String(contentsOfFile: "/proc/\(entry)/comm", encoding: .utf8),
                  command.trimmingCharacters(in: .whitespacesAndNewlines) == name
            else { return nil }
            return pid
        }
    }
}

/// Which cores a process's threads may run on (Linux `sched_setaffinity`): `latchkey bench --pin` puts
/// the server on core 0 and itself on the others, so that the server does not share its core with the
/// load generator and the figures are those of a server with a core to itself.
enum CPUAffinity {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static var coreCount: Int { Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))) }

    /// Pins every thread `pid` has now; threads it starts later inherit their creator's set.
    static func pin(_ pid: Int32, to cores: [Int]) throws {
        var set = cpu_set_t()
        withUnsafeMutableBytes(of: &set) { bytes in
            for core in cores where core / 8 < bytes.count { bytes[core / 8] |= UInt8(1 << (core % 8)) }
        }
        let threads = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task"))?.compactMap(Int32.init) ?? []
        guard !threads.isEmpty else { throw Failure(description: "process \(pid) has no threads to pin (is it running?)") }
        let setAffinity = try Self.setAffinity()
        for thread in threads where setAffinity(thread, MemoryLayout<cpu_set_t>.size, &set) != 0 && errno != ESRCH {
            throw Failure(description: "sched_setaffinity(\(thread)) failed: errno \(errno)")
        }
    }

    private typealias SetAffinity = @convention(c) (pid_t, Int, UnsafePointer<cpu_set_t>) -> Int32

    /// glibc's `sched_setaffinity`, looked up at run time: Swift's Glibc module leaves out the GNU
    /// extensions it is declared among.
    private static func setAffinity() throws -> SetAffinity {
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "sched_setaffinity") else {
            throw Failure(description: "this C library has no sched_setaffinity")
        }
        return unsafeBitCast(symbol, to: SetAffinity.self)
    }
}
