import ArgumentParser
import Foundation
import Testing

@testable import latchkey

/// README.md and the manual under docs/ (issue 46, item 5): every relative link resolves — the file, and the
/// heading a `#fragment` names — and every flag they name exists: on a `latchkey serve` line in
/// `latchkey serve --help`, elsewhere in the help of one of latchkey's commands, or in `foreignFlags`, the
/// flags of other programs the manual shows (each with its program). A renamed setting or a moved section
/// fails here with the file and line to fix. The README keeps the two developer commands.
struct DocumentationTests {
    static let repository = ConfigurationFileTests.repository

    /// README.md and docs/*.md, by path relative to the repository.
    static func documents() throws -> [(path: String, text: String)] {
        let docs = try FileManager.default.contentsOfDirectory(atPath: repository.appendingPathComponent("docs").path)
            .filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
        return try (["README.md"] + docs).map { path in
            (path, try String(contentsOf: repository.appendingPathComponent(path), encoding: .utf8))
        }
    }

    /// The lines outside fenced code blocks, numbered from 1, and those inside.
    static func lines(_ text: String) -> (prose: [(Int, String)], code: [(Int, String)]) {
        var prose: [(Int, String)] = [], code: [(Int, String)] = [], fenced = false
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line.hasPrefix("```") {
                fenced.toggle()
                continue
            }
            if fenced { code.append((index + 1, String(line))) } else { prose.append((index + 1, String(line))) }
        }
        return (prose, code)
    }

    /// GitHub's anchor for a heading: lower case, punctuation but `-` and `_` dropped, spaces as dashes.
    static func anchor(_ heading: String) -> String {
        let text = heading.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces).lowercased()
        return String(text.compactMap { character -> Character? in
            if character == " " { return "-" }
            if character.isLetter || character.isNumber || character == "-" || character == "_" { return character }
            return nil
        })
    }

    static func anchors(in text: String) -> Set<String> {
        Set(lines(text).prose.map(\.1).filter { $0.hasPrefix("#") }.map(anchor))
    }

    /// Each `[text](target)` of the prose whose target is no URL: (line, target).
    static func relativeLinks(_ text: String) -> [(Int, String)] {
        let link = /\]\(([^)\s]+)\)/
        return lines(text).prose.flatMap { number, line in
            line.matches(of: link).map { (number, String($0.1)) }
        }.filter { !$0.1.contains("://") && !$0.1.hasPrefix("mailto:") }
    }

    @Test("every relative link of README.md and docs/ resolves, to the file and to the heading it names")
    func linksResolve() throws {
        let documents = try Self.documents()
        #expect(documents.count >= 10, "README.md and the manual: \(documents.map(\.path))")
        for (path, text) in documents {
            let directory = URL(fileURLWithPath: path).deletingLastPathComponent().relativePath
            for (number, target) in Self.relativeLinks(text) {
                let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                let file = parts[0].isEmpty ? path : URL(fileURLWithPath: directory == "." ? parts[0] : directory + "/" + parts[0]).standardized.relativePath
                let url = Self.repository.appendingPathComponent(file)
                guard FileManager.default.fileExists(atPath: url.path) else {
                    Issue.record("\(path):\(number): the link \(target) leads to \(file), which does not exist")
                    continue
                }
                if parts.count == 2, file.hasSuffix(".md") {
                    let headings = Self.anchors(in: try String(contentsOf: url, encoding: .utf8))
                    #expect(headings.contains(parts[1]), "\(path):\(number): the link \(target): \(file) has no heading whose anchor is #\(parts[1])")
                }
            }
        }
    }

    /// The help of every latchkey command, `serve`'s with its table of settings.
    static func allHelp() -> String {
        func commands(_ command: ParsableCommand.Type) -> [ParsableCommand.Type] {
            [command] + command.configuration.subcommands.flatMap(commands)
        }
        return commands(Latchkey.self).map { Latchkey.helpMessage(for: $0) }.joined(separator: "\n") + ServeCommand.helpMessage()
    }

    static func flags(in text: some StringProtocol) -> [String] {
        String(text).matches(of: /(?:^|[^\w-])--([a-z][a-z0-9-]*)/).map { "--" + String($0.1) }
    }

    /// Flags of other programs that the manual shows, by program (and the one misspelt on purpose).
    static let foreignFlags: Set<String> = [
        // swift build, swift package, swift test
        "--build-tests", "--product", "--static-swift-stdlib", "--scratch-path", "--target", "--warnings-as-errors", "--skip-build",
        // scripts/test, scripts/package, scripts/counts, scripts/cluster, scripts/bench-report, scripts/bench-admin-search
        "--list", "--top", "--instances", "--million", "--postgres", "--build-only",
        // valgrind, sha256sum, pg_dump, curl, systemctl, systemd-analyze, basenc, Grafana's and Nextcloud's settings
        "--tool", "--dump-before", "--check", "--http2", "--file", "--format", "--now", "--signal", "--offline", "--base64url",
        "--clientid", "--clientsecret", "--discoveryuri", "--mapping-display-name", "--mapping-email", "--mapping-groups",
        "--mapping-uid", "--postlogouturi", "--send-id-token-hint", "--unique-uid", "--group-provisioning",
        // the example of a misspelt flag (docs/configuration.md)
        "--prot",
    ]

    @Test("every flag the docs name exists: in serve --help on a latchkey serve line, else in a latchkey command's help")
    func flagsExist() throws {
        let serveHelp = ServeCommand.helpMessage() + "\n--help --version"
        let serveFlags = Set(Self.flags(in: serveHelp))
        let known = Set(Self.flags(in: Self.allHelp() + "\n--help --version"))
        #expect(serveFlags.contains("--rp-id") && serveFlags.contains("--config") && known.contains("--keep"), "\(serveFlags.count) serve flags")
        for (path, text) in try Self.documents() {
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                // On a `latchkey serve` command line, from there to the end of its code span or line.
                for match in line.matches(of: /latchkey serve([^`]*)/) {
                    for flag in Self.flags(in: match.1) where !serveFlags.contains(flag) {
                        Issue.record("\(path):\(number + 1): \(flag) is not a flag of latchkey serve --help: \(line)")
                    }
                }
                for flag in Self.flags(in: line) where !known.contains(flag) && !Self.foreignFlags.contains(flag) {
                    Issue.record("\(path):\(number + 1): \(flag) is no flag of latchkey serve, of another latchkey command, or of the programs in foreignFlags: \(line)")
                }
            }
        }
    }

    @Test("README.md is short, starts with what Latchkey is and installing it, and keeps the two developer commands")
    func readmeForANewcomer() throws {
        let readme = try String(contentsOf: Self.repository.appendingPathComponent("README.md"), encoding: .utf8)
        let count = readme.split(separator: "\n", omittingEmptySubsequences: false).count
        #expect(count <= 220, "README.md has \(count) lines; the rest belongs in docs/")
        let headings = Self.lines(readme).prose.map(\.1).filter { $0.hasPrefix("## ") }
        #expect(headings.first == "## Install", "the first section: \(headings)")
        #expect(readme.contains("```sh\nswift run latchkey serve\n```"), "README.md shows `swift run latchkey serve`")
        #expect(readme.contains("```sh\nscripts/test\n```"), "README.md shows `scripts/test`")
        #expect(readme.contains("](docs/sign-in.png)"), "README.md shows the page")
    }
}
