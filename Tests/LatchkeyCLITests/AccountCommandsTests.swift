import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import WebAuthn

/// The account commands end to end: the real `latchkey serve` on a free port with a temporary database,
/// and the CLI run as a user would, in a temporary HOME (so its session file and passkey store are fresh).
@Suite("latchkey account commands", .serialized)
struct AccountCommandsTests {
    final class Server {
        let process = Process()
        let port = ServeCommandTests.freePort()
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-home-\(UUID().uuidString)")
        var url: String { "http://localhost:\(port)" }

        init(sessionTTL: Int = 3600, flags: [String] = []) async throws {
            try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
            process.executableURL = LatchkeyBinary.url
            process.arguments = ["serve", "--port", "\(port)", "--database", "sqlite:\(home.path)/server.sqlite", "--session-ttl", "\(sessionTTL)"] + flags
            process.standardOutput = Pipe()
            process.standardError = Pipe()
            try process.run()
            for _ in 0..<100 {
                if let health = URL(string: "http://127.0.0.1:\(port)/healthz"), (try? await URLSession.shared.data(from: health)) != nil { return }
                try await Task.sleep(for: .milliseconds(100))
            }
            stop()
            throw CancellationError()
        }

        func stop() {
            if process.isRunning {
                process.terminate()
                process.waitUntilExit()
            }
            try? FileManager.default.removeItem(at: home)
        }

        /// Runs `latchkey ARGS --server URL` with HOME set to this test's directory (`--server` goes before a
        /// `--`, after which a passkey id that starts with "-" is not taken for an option).
        func cli(_ arguments: [String], server: String? = nil) throws -> LatchkeyBinary.Run {
            var arguments = arguments
            arguments.insert(contentsOf: ["--server", server ?? url], at: arguments.firstIndex(of: "--") ?? arguments.endIndex)
            return try LatchkeyBinary.run(
                arguments,
                environment: ["HOME": home.path, "XDG_CONFIG_HOME": "", "LATCHKEY_AUTHENTICATOR_STORE": "", "LATCHKEY_TOKEN_STORE": ""])
        }
    }

    @Test("passkeys list names each passkey's provider (by its AAGUID) and whether it is synced")
    func providerNames() async throws {
        let server = try await Server()
        defer { server.stop() }
        var run = try server.cli(["register", "Ada", "--aaguid", "fbfc3007-154e-4ecc-8c0b-6e020557d7bd"])
        #expect(run.status == 0, "\(run.stderr)")
        // A second passkey from another authenticator (its own store), with an AAGUID no list holds.
        run = try server.cli(["passkeys", "add", "Spare", "--store", server.home.appendingPathComponent("spare.json").path])
        #expect(run.status == 0, "\(run.stderr)")
        run = try server.cli(["passkeys", "list"])
        let lines = run.stdout.split(separator: "\n")
        #expect(lines.count == 2)
        // The software authenticator makes discoverable passkeys with a PRF (the server asks for both).
        #expect(lines.first?.contains("  Ada  Apple Passwords  synced passkey, discoverable, can unlock encrypted data (PRF)  last used") == true, "\(run.stdout)")
        #expect(lines.last?.contains("  Spare  unknown provider  synced passkey, discoverable, can unlock encrypted data (PRF)  last used") == true, "\(run.stdout)")
        run = try server.cli(["passkeys", "list", "--json"])
        let list = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]])
        #expect((list.first?["provider"] as? [String: Any])?["name"] as? String == "Apple Passwords")
        #expect(list.last?["provider"] == nil, "no provider: the member is left out")

        run = try server.cli(["register", "Eve", "--aaguid", "not-a-uuid"])
        #expect(run.status != 0)
        #expect(run.stderr.contains("--aaguid must be a UUID"))
    }

    @Test("login --prf-salt prints the passkey's PRF output: the same for the same salt, another for another; --prf uses the server's salt; nothing unless asked")
    func prfOutputs() async throws {
        let serverSalt = "c2VydmVyLXNhbHQtMzItYnl0ZXMtbG9uZy0tLS0tLS0"
        let server = try await Server(flags: ["--prf-salt", serverSalt])
        defer { server.stop() }
        var run = try server.cli(["register", "Ada"])
        #expect(run.status == 0, "\(run.stderr)")
        run = try server.cli(["passkeys", "list", "--json"])
        let list = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]])
        #expect(list.first?["prfEnabled"] as? Bool == true && list.first?["discoverable"] as? Bool == true, "\(run.stdout)")

        func login(_ arguments: [String]) throws -> (String, LatchkeyBinary.Run) {
            #expect(try server.cli(["logout"]).status == 0)
            let run = try server.cli(["login"] + arguments)
            #expect(run.status == 0, "\(run.stderr)")
            let line = run.stdout.split(separator: "\n").first { $0.hasPrefix("PRF output: ") }
            return (line.map { String($0.dropFirst("PRF output: ".count)) } ?? "", run)
        }
        let (first, firstRun) = try login(["--prf-salt", "c2FsdC1vbmU"])
        #expect(firstRun.stdout.hasPrefix("Logged in as Ada.\n"), "\(firstRun.stdout)")
        #expect(Base64URL.decode(first)?.count == 32, "\(firstRun.stdout)")
        #expect(!firstRun.stdout.contains("Second PRF output"))
        let (again, _) = try login(["--prf-salt", "c2FsdC1vbmU"])
        #expect(again == first, "a PRF is a function of the passkey and the salt")
        let (other, twoRun) = try login(["--prf-salt", "c2FsdC10d28", "--prf-salt", "c2FsdC1vbmU"])
        #expect(other != first && Base64URL.decode(other)?.count == 32)
        #expect(twoRun.stdout.contains("Second PRF output: \(first)\n"), "the second input gives the first's output: \(twoRun.stdout)")
        // The server's configured salt, and the same salt sent by the client, evaluate alike.
        let (configured, _) = try login(["--prf"])
        let (sent, _) = try login(["--prf-salt", serverSalt])
        #expect(configured == sent && configured != first && Base64URL.decode(configured)?.count == 32)
        // Without asking, no output is printed, though the server's salt was evaluated.
        #expect(try server.cli(["logout"]).status == 0)
        run = try server.cli(["login"])
        #expect(run.status == 0 && run.stdout == "Logged in as Ada.\n", "\(run.stdout)")
        // --json: the account and the outputs.
        #expect(try server.cli(["logout"]).status == 0)
        run = try server.cli(["login", "--json", "--prf-salt", "c2FsdC1vbmU"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect((run.json?["prf"] as? [String: Any])?["first"] as? String == first, "\(run.stdout)")
        #expect((run.json?["account"] as? [String: Any])?["displayName"] as? String == "Ada")

        run = try server.cli(["login", "--prf-salt", "not base64url!"])
        #expect(run.status == 2 && run.stderr.contains("--prf-salt must be 1 to 64 bytes as base64url"), "\(run.stderr)")
        run = try server.cli(["login", "--prf-salt", "YQ", "--prf-salt", "Yg", "--prf-salt", "Yw"])
        #expect(run.status == 2, "\(run.stderr)")
    }

    @Test("register → account → update → logout → login → passkeys → delete, with outputs and exit codes")
    func journey() async throws {
        let server = try await Server()
        defer { server.stop() }

        var run = try server.cli(["register", "Ada"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("Registered and logged in as Ada."))
        let sessions = server.home.appendingPathComponent(".config/latchkey/sessions.json")
        #expect((try FileManager.default.attributesOfItem(atPath: sessions.path)[.posixPermissions] as? NSNumber)?.intValue == 0o600)

        run = try server.cli(["register", "Eve"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("already logged in"))

        run = try server.cli(["account", "--json"])
        #expect(run.status == 0)
        #expect(run.json?["displayName"] as? String == "Ada")
        #expect((run.json?["createdAt"] as? String).flatMap { try? Date($0, strategy: .iso8601) } != nil, "a time as the server writes it")

        run = try server.cli(["account", "update", "--credo", "The Analytical Engine weaves algebraic patterns"])
        #expect(run.status == 0)
        #expect(run.stdout.contains("Credo:        The Analytical Engine weaves algebraic patterns"))
        run = try server.cli(["account", "update", "--display-name", ""])
        #expect(run.status == 1)
        #expect(run.stderr.contains("invalid_field"))

        run = try server.cli(["passkeys", "list", "--json"])
        let list = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]])
        #expect(list.count == 1)
        let id = try #require(list.first?["id"] as? String)
        run = try server.cli(["passkeys", "rename", "--", id, "Linux laptop"])
        #expect(run.status == 0)
        #expect(run.stdout.contains("Renamed to Linux laptop."))
        run = try server.cli(["passkeys", "remove", "--", id])
        #expect(run.status == 1)
        #expect(run.stderr.contains("last_passkey"))

        run = try server.cli(["logout"])
        #expect(run.status == 0)
        run = try server.cli(["account"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("not logged in: run `latchkey login`"))

        run = try server.cli(["login"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("Logged in as Ada."))

        run = try server.cli(["account", "delete"])
        #expect(run.status == 2, "without a terminal, deletion needs --yes")
        run = try server.cli(["account", "delete", "--yes"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("removed 1 passkey(s) from the local authenticator store"))
        run = try server.cli(["login"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("no passkey for this server"))
    }

    @Test("account events: the history as a table, newest first, page by page, and as JSON")
    func events() async throws {
        let server = try await Server()
        defer { server.stop() }
        var run = try server.cli(["account", "events"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("not logged in"))

        run = try server.cli(["register", "Ada", "--aaguid", "fbfc3007-154e-4ecc-8c0b-6e020557d7bd"])
        #expect(run.status == 0, "\(run.stderr)")
        run = try server.cli(["passkeys", "list", "--json"])
        let list = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]])
        let id = try #require(list.first?["id"] as? String)
        run = try server.cli(["passkeys", "rename", "--", id, "Linux laptop"])
        #expect(run.status == 0, "\(run.stderr)")
        run = try server.cli(["logout"])
        #expect(run.status == 0, "\(run.stderr)")
        run = try server.cli(["login"])
        #expect(run.status == 0, "\(run.stderr)")

        run = try server.cli(["account", "events"])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 6, "a header and five events: \(run.stdout)")
        #expect(lines.first?.hasPrefix("TIME") == true && lines.first?.contains("EVENT") == true && lines.first?.contains("PROVIDER") == true
            && lines.first?.contains("DEVICE") == true && lines.first?.contains("ADDRESS") == true, "\(run.stdout)")
        let kinds = lines.dropFirst().map { $0.split(separator: " ", omittingEmptySubsequences: true)[1] }
        #expect(kinds == ["login.succeeded", "session.ended", "passkey.renamed", "passkey.added", "account.created"], "\(run.stdout)")
        // The passkey's provider, named by its AAGUID, on the events of the passkey; where each came from.
        #expect(lines[1].contains("Apple Passwords") && lines[1].contains("127.0.0.1"), "\(lines[1])")
        #expect(lines[3].contains("Apple Passwords") && lines[3].contains(#"name=Linux laptop"#), "\(lines[3])")
        #expect(lines[2].contains("  -  "), "no passkey, no provider: \(lines[2])")
        #expect(!run.stdout.contains("More:"), "one page holds it all")

        run = try server.cli(["account", "events", "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let page = try #require(run.json)
        let events = try #require(page["events"] as? [[String: Any]])
        #expect(events.map { $0["event"] as? String } == ["login.succeeded", "session.ended", "passkey.renamed", "passkey.added", "account.created"])
        #expect(events.allSatisfy { $0["clientAddress"] as? String == "127.0.0.1" && $0["byOperator"] as? Bool == false })
        #expect(events.allSatisfy { ($0["at"] as? String).flatMap { try? Date($0, strategy: .iso8601) } != nil }, "times as the server writes them")
        #expect(events[2]["passkeyId"] as? String == id)
        #expect((events[2]["detail"] as? [String: Any])?["name"] as? String == "Linux laptop")
        #expect(events[2]["provider"] as? String == "Apple Passwords")
        #expect(page["next"] == nil, "the last page: no cursor")

        // Two at a time: the cursor of the "More:" line gives the next two.
        run = try server.cli(["account", "events", "--limit", "2"])
        #expect(run.status == 0, "\(run.stderr)")
        let more = try #require(run.stdout.split(separator: "\n").last.map(String.init))
        #expect(more.hasPrefix("More: --cursor "), "\(run.stdout)")
        let cursor = String(more.dropFirst("More: --cursor ".count))
        #expect(cursor == events[1]["id"] as? String)
        run = try server.cli(["account", "events", "--limit", "2", "--cursor", cursor, "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let second = try #require(run.json?["events"] as? [[String: Any]])
        #expect(second.map { $0["id"] as? String } == events[2..<4].map { $0["id"] as? String })
        #expect(run.json?["next"] as? String == events[3]["id"] as? String)

        run = try server.cli(["account", "events", "--limit", "0"])
        #expect(run.status == 2)
        run = try server.cli(["account", "events", "--cursor", "yesterday"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("invalid_parameter"))
    }

    @Test("bad input: unknown flags exit 2, an unreachable server 3, an expired token 1 with what to do")
    func badInput() async throws {
        let server = try await Server(sessionTTL: 1)
        defer { server.stop() }
        var run = try server.cli(["register", "Ada", "--frobnicate"])
        #expect(run.status == 2)
        run = try server.cli(["account"], server: "ftp://example.com")
        #expect(run.status == 2)
        run = try server.cli(["login"], server: "http://127.0.0.1:1")
        #expect(run.status == 3)
        #expect(run.stderr.contains("unreachable"))

        run = try server.cli(["register", "Ada"])
        #expect(run.status == 0)
        try await Task.sleep(for: .seconds(2))
        run = try server.cli(["account"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("not logged in: run `latchkey login`"))
    }
}
