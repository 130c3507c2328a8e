import Foundation
import LatchkeyDatabase
@_spi(Benchmark) import LatchkeyServer
import Logging

#if canImport(Glibc)
import Glibc
#endif

/// `latchkey bench --limit` (issue 50): what a login cannot cost less than on this machine today — the HTTP
/// floor (two requests that do nothing), one P-256 verification and one durable commit of a login's writes
/// — measured in the same run as the logins, so that the ratio carries over between machines whose floor,
/// curve arithmetic and disk differ. The verification and the commits run in this process through the
/// server's own code (`BenchLimit`) on the server's database, after the load (the server idle), with every
/// thread of this process on the server's core when `--pin` put it on one: the same core, the same SQLite
/// settings and file, not the load generator's cores. CPU time is what is compared, as for the server.
extension BenchCommand {
    /// Verifications timed, after as many untimed (the key's tables and the code paths warm).
    static let limitVerifications = 2000
    /// How long each kind of commit is repeated: enough commits that the CPU clock's resolution is lost.
    static let limitCommitSeconds = 3.0

    func measureLimit(database: DatabaseLocation, perCount: [Int: [Iteration: Double]], serverPid: Int32) async throws {
        if pin { try CPUAffinity.pin(getpid(), to: [0]) }
        defer { if pin { try? CPUAffinity.pin(getpid(), to: Array(1..<CPUAffinity.coreCount)) } }

        let signed = try BenchLimit.Signed()
        guard BenchLimit.verifications(Self.limitVerifications, of: signed) else {
            throw BenchAPI.Failure(description: "the limit's P-256 signature did not verify")
        }
        // The loop runs on this thread, with no suspension: the thread's own CPU clock.
        let threadBefore = ProcessStats.threadCPUSeconds()
        _ = BenchLimit.verifications(Self.limitVerifications, of: signed)
        let verification = (ProcessStats.threadCPUSeconds() - threadBefore) / Double(Self.limitVerifications) * 1e6

        let limit = try await BenchLimit.open(database, logger: Logger(label: "bench"))
        func commits(_ run: (Int) async throws -> Void) async throws -> (cpu: Double, wall: Double, count: Int) {
            try await run(20)  // warm: statements prepared, pages cached
            let clock = ContinuousClock()
            let start = clock.now
            let cpuBefore = ProcessStats.ownCPUSeconds()
            var count = 0
            while clock.now - start < .seconds(Self.limitCommitSeconds) {
                try await run(50)
                count += 50
            }
            let wall = clock.now - start
            let seconds = Double(wall.components.seconds) + Double(wall.components.attoseconds) / 1e18
            return ((ProcessStats.ownCPUSeconds() - cpuBefore) / Double(count) * 1e6, seconds / Double(count) * 1e6, count)
        }
        let serverBefore = ProcessStats.seconds(of: serverPid)
        let login: (cpu: Double, wall: Double, count: Int)
        let registration: (cpu: Double, wall: Double, count: Int)
        do {
            login = try await commits { try await limit.loginCommits($0) }
            registration = try await commits { try await limit.registrationCommits($0) }
        } catch {
            try? await limit.shutdown()
            throw error
        }
        try await limit.shutdown()
        let serverDuring = ProcessStats.seconds(of: serverPid) - serverBefore

        print(String(format: "limit           verification  %7.1f µs CPU  (one P-256 signature, COSEKey.isValidSignature, %d timed)",
                     verification, Self.limitVerifications))
        print(String(format: "limit           login commit  %7.1f µs CPU  %7.1f µs wall  (mark, counter, session, audit: finishLogin, %d commits)",
                     login.cpu, login.wall, login.count))
        print(String(format: "limit           registration commit  %7.1f µs CPU  %7.1f µs wall  (mark, account, passkey, session, 2 audit: createAccount, %d commits)",
                     registration.cpu, registration.wall, registration.count))
        if serverDuring > 0.05 {
            print(String(format: "limit           note: the server used %.2f s of CPU while the limit was measured (not idle)", serverDuring))
        }
        for count in perCount.keys.sorted() {
            guard let floor = perCount[count]?[.floor], floor > 0 else { continue }
            let loginLimit = floor + verification + login.cpu
            if let measured = perCount[count]?[.login] {
                print(String(format: "ratio           %7d  server CPU per login / limit (floor %.0f + 1 verification %.0f + commit %.0f = %.0f µs): %.2f×",
                             count, floor, verification, login.cpu, loginLimit, measured / loginLimit))
            }
            let registrationLimit = floor + 2 * verification + registration.cpu
            if let measured = perCount[count]?[.registration] {
                print(String(format: "ratio           %7d  server CPU per registration / limit (floor %.0f + 2 verifications %.0f + commit %.0f = %.0f µs): %.2f×",
                             count, floor, 2 * verification, registration.cpu, registrationLimit, measured / registrationLimit))
            }
        }
    }
}
