import ArgumentParser
import Testing
@testable import latchkey

/// `latchkey admin`'s commands share one `run()` (`AdminSubcommand`): every leaf command — one with no
/// subcommands of its own — is one, so none opens the database, prints or maps refusals its own way.
@Suite("latchkey admin's commands")
struct AdminSubcommandTests {
    static func leaves(_ command: any ParsableCommand.Type) -> [any ParsableCommand.Type] {
        let children = command.configuration.subcommands
        return children.isEmpty ? [command] : children.flatMap(leaves)
    }

    @Test("every leaf of latchkey admin (clients included) is an AdminSubcommand")
    func everyLeafSharesTheRunPattern() {
        let leaves = Self.leaves(AdminCommand.self)
        #expect(leaves.count >= 20, "\(leaves.count) commands")
        #expect(leaves.contains { $0 == AdminCommand.Clients.RotateSecret.self })
        for leaf in leaves {
            #expect(leaf is any AdminSubcommand.Type, "\(leaf) runs on its own")
        }
    }
}
