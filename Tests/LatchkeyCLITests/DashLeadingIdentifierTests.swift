import Testing
@testable import latchkey

@Suite("credential ids that begin with -")
struct DashLeadingIdentifierTests {
    /// A real id from the run that printed help and removed nothing.
    static let id = "-RuAFH16y4Td8SuLXtYku-jrhig20W0PC37p0bFo0AM"

    @Test("refused before parsing in the three commands that take ids, wherever the id stands among the options")
    func refused() throws {
        for command in DashLeadingIdentifier.commands {
            let refusal = try #require(DashLeadingIdentifier.refusal(for: command + [Self.id]))
            #expect(refusal.contains("latchkey \(command.joined(separator: " ")) -- \(Self.id)"), "\(refusal)")
            #expect(DashLeadingIdentifier.refusal(for: command + ["--json", Self.id, "new name"]) != nil)
            #expect(DashLeadingIdentifier.refusal(for: command + ["--store", "/tmp/s.json", Self.id]) != nil)
        }
        #expect(DashLeadingIdentifier.refusal(for: ["passkeys", "remove", "--" + Self.id.dropFirst()]) != nil, "an id that begins with --")
    }

    @Test("left to the parser: behind --, ids without a dash, options, short flags, other commands")
    func passedOn() {
        #expect(DashLeadingIdentifier.refusal(for: ["passkeys", "remove", "--", Self.id]) == nil)
        #expect(DashLeadingIdentifier.refusal(for: ["passkeys", "rename", "--json", "--", Self.id, "-name"]) == nil)
        #expect(DashLeadingIdentifier.refusal(for: ["passkeys", "remove", String(Self.id.dropFirst())]) == nil)
        #expect(DashLeadingIdentifier.refusal(for: ["authenticator", "remove", "-h"]) == nil)
        #expect(DashLeadingIdentifier.refusal(for: ["passkeys", "rename", "--json", "--server", "http://localhost:8080", "abc", "x"]) == nil)
        #expect(DashLeadingIdentifier.refusal(for: ["passkeys", "remove", "--max-connections-per-client"]) == nil, "a long option's shape")
        #expect(DashLeadingIdentifier.refusal(for: ["register", Self.id]) == nil, "names elsewhere are the parser's business")
        #expect(DashLeadingIdentifier.refusal(for: ["passkeys", "remove", "-RuAF+H16y4Td8SuLXtYku/jrhig20W0PC37p0bF"]) == nil, "not base64url")
    }
}
