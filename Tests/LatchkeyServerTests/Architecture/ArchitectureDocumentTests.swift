import Foundation
import Testing
@testable import LatchkeyServer

/// docs/ARCHITECTURE.md held to the code (issue 44, item 4: the documents stay true by test). It once said
/// "migrations 1–15 exist" when there were 20, and its table of stages lacked stages `scripts/test` ran: a
/// document nobody checks drifts with every change. These tests read the parts that can be read off the code
/// — the migrations, the stages, the module map's folders, files and type names — and each failure names the
/// line or entry that drifted and what to write instead, so that the fix is a copy, not an investigation.
@Suite("docs/ARCHITECTURE.md agrees with the code")
struct ArchitectureDocumentTests {
    /// The package's root: this file is Tests/LatchkeyServerTests/Architecture/ArchitectureDocumentTests.swift.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../..").standardized
    static let documentPath = "docs/ARCHITECTURE.md"

    /// One line of the document, with its number (from 1, as editors show it) for the failure messages.
    struct Line {
        let number: Int
        let text: String
    }

    /// One row of a Markdown table: its line and its cells, trimmed (`\|` is a `|` inside a cell).
    struct Row {
        let line: Line
        let cells: [String]
    }

    static func document() throws -> [Line] {
        let text = try String(contentsOf: root.appendingPathComponent(documentPath), encoding: .utf8)
        return text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().map {
            Line(number: $0.offset + 1, text: String($0.element))
        }
    }

    /// The lines after the heading that starts with `heading`, up to the next heading of the same or a higher
    /// level (`## 5. Storage` ends at `## 6.`; `### Inside …` at the next `###` or `##`).
    static func section(_ heading: String, of lines: [Line]) throws -> [Line] {
        let start = try #require(lines.firstIndex { $0.text.hasPrefix(heading) },
                                 "\(documentPath) has no heading starting with \"\(heading)\"; the test reads that section")
        let level = heading.prefix { $0 == "#" }.count
        let rest = lines[(start + 1)...]
        let end = rest.firstIndex { line in
            let hashes = line.text.prefix { $0 == "#" }.count
            return hashes > 0 && hashes <= level && line.text.dropFirst(hashes).hasPrefix(" ")
        } ?? lines.endIndex
        return Array(lines[(start + 1)..<end])
    }

    static func cells(_ text: String) -> [String] {
        var cells: [String] = []
        var cell = ""
        var escaped = false
        for character in text.trimmingCharacters(in: .whitespaces).dropFirst() {
            if escaped {
                cell.append(character == "|" ? "|" : "\\\(character)")
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "|" {
                cells.append(cell.trimmingCharacters(in: .whitespaces))
                cell = ""
            } else {
                cell.append(character)
            }
        }
        return cells
    }

    /// The body rows of the table whose header's cells are `header` (compared without case), in `lines`.
    static func table(_ header: [String], in lines: [Line], section: String) throws -> [Row] {
        let wanted = header.map { $0.lowercased() }
        let start = try #require(
            lines.firstIndex { $0.text.hasPrefix("|") && cells($0.text).map { $0.lowercased() } == wanted },
            "\(documentPath) \(section) has no table whose header is \"| \(header.joined(separator: " | ")) |\"; the test reads that table")
        // The header, then its `| --- |` line, then the rows up to the first line that is not a row.
        return lines[(start + 2)...].prefix { $0.text.hasPrefix("|") }.map { Row(line: $0, cells: cells($0.text)) }
    }

    /// The texts between backticks on a line.
    static func backticked(_ text: String) -> [String] {
        text.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
    }

    // MARK: Migrations

    @Test("§5's table of versions is Migrations.all: every version, in order, with its summary")
    func migrationTable() throws {
        let storage = try Self.section("## 5. Storage", of: Self.document())
        let rows = try Self.table(["Version", "What it changes"], in: storage, section: "§5 Storage")
        func expectedRow(_ migration: Migrations.Migration) -> String {
            "| \(migration.version) | \(migration.summary.replacingOccurrences(of: "|", with: "\\|")) |"
        }
        let known = Dictionary(uniqueKeysWithValues: Migrations.all.map { ($0.version, $0) })
        var documented: [Int] = []
        for row in rows {
            let at = "\(Self.documentPath):\(row.line.number)"
            guard row.cells.count == 2, let version = Int(row.cells[0]) else {
                Issue.record("\(at): a row of §5's table of versions is not \"| VERSION | SUMMARY |\": \(row.line.text)")
                continue
            }
            documented.append(version)
            guard let migration = known[version] else {
                Issue.record("\(at): version \(version) is not in Migrations.all (Sources/LatchkeyServer/Storage/Migrations/); remove the row")
                continue
            }
            #expect(row.cells[1] == migration.summary,
                    "\(at): version \(version)'s summary differs from Migrations.all's; write the row as: \(expectedRow(migration))")
        }
        var previous: Int?
        for migration in Migrations.all {
            if !documented.contains(migration.version) {
                let place = previous.map { "after the row of version \($0)" } ?? "as the table's first row"
                Issue.record("\(Self.documentPath) §5: migration \(migration.version) has no row in the table of versions; add, \(place): \(expectedRow(migration))")
            }
            previous = migration.version
        }
        let order = Migrations.all.map(\.version)
        if Set(documented) == Set(order) && documented.count == order.count {
            #expect(documented == order,
                    "\(Self.documentPath) §5: the table of versions is out of order; its rows must follow Migrations.all: \(order.map(String.init).joined(separator: ", "))")
        }
        #expect(documented.last == Migrations.latestVersion,
                "\(Self.documentPath) §5: the table of versions must end with Migrations.latestVersion, \(Migrations.latestVersion)")
    }

    /// Prose names versions too ("migration 19", "(v12)", "schema 9", "v2–v3"): each must exist. `vN` is
    /// read in §5 only, where the schema's table uses it; elsewhere "v1" is a label's version (§3, §4).
    @Test("every migration version the document names exists")
    func migrationMentions() throws {
        let lines = try Self.document()
        let storage = try Set(Self.section("## 5. Storage", of: lines).map(\.number))
        let versions = Set(Migrations.all.map(\.version))
        let everywhere = try Regex("(?:[Mm]igrations?|[Vv]ersions?|schema)[ -]([0-9]+)(?:[–-]([0-9]+))?")
        let inStorage = try Regex("\\bv([0-9]+)(?:[–-]v?([0-9]+))?\\b")
        for line in lines {
            var patterns = [everywhere]
            if storage.contains(line.number) { patterns.append(inStorage) }
            for pattern in patterns {
                for match in line.text.matches(of: pattern) {
                    let named = (1..<match.output.count).compactMap { match.output[$0].substring.flatMap { Int($0) } }
                    for version in named where !versions.contains(version) {
                        Issue.record("""
                            \(Self.documentPath):\(line.number): "\(line.text[match.range])" names version \(version), which Migrations.all \
                            does not have (it has \(Migrations.all.map { String($0.version) }.joined(separator: ", "))); correct the number or the sentence
                            """)
                    }
                }
            }
        }
    }

    // MARK: Stages

    /// The stages as `scripts/test --list` prints them (its `all_stages`, in order), one a line, name first.
    static func stages() throws -> [String] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["scripts/test", "--list"]
        process.currentDirectoryURL = root
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "scripts/test --list failed (status \(process.terminationStatus))")
        return String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap { $0.split(separator: " ").first.map(String.init) }
    }

    @Test("§9's table of stages is scripts/test's stages, in the order they run, and no other")
    func stageTable() throws {
        let tests = try Self.section("## 9. Tests and CI", of: Self.document())
        let rows = try Self.table(["Stage", "Runs", "Checks"], in: tests, section: "§9 Tests and CI")
        let stages = try Self.stages()
        try #require(stages.count >= 10, "scripts/test --list printed \(stages.count) stages: \(stages)")
        var documented: [String] = []
        for row in rows {
            let names = Self.backticked(row.cells.first ?? "")
            guard names.count == 1, let name = names.first else {
                Issue.record("\(Self.documentPath):\(row.line.number): a stage row's first cell must be the stage's name in backticks: \(row.line.text)")
                continue
            }
            documented.append(name)
            if !stages.contains(name) {
                Issue.record("\(Self.documentPath):\(row.line.number): stage `\(name)` is not one of scripts/test --list's stages; remove its row, or add the stage to all_stages")
            }
        }
        for (index, stage) in stages.enumerated() where !documented.contains(stage) {
            let place = index == 0 ? "as the table's first row" : "after the row of `\(stages[index - 1])`"
            Issue.record("\(Self.documentPath) §9: stage `\(stage)` (scripts/test --list) has no row; add \"| `\(stage)` | … | … |\" \(place), saying what it runs and checks")
        }
        let common = documented.filter { stages.contains($0) }
        let expected = stages.filter { documented.contains($0) }
        if let first = (0..<min(common.count, expected.count)).first(where: { common[$0] != expected[$0] }) {
            let row = rows.first { Self.backticked($0.cells.first ?? "") == [common[first]] }
            Issue.record("""
                \(Self.documentPath):\(row?.line.number ?? 0): stage `\(common[first])` is out of order; scripts/test runs \
                `\(expected[first])` there. The rows must follow scripts/test --list: \(stages.joined(separator: ", "))
                """)
        }
    }

    // MARK: Module map

    /// Names in the table that are not ours: written in backticks because they are code, declared by Swift or a dependency.
    static let dependencyTypes: Set<String> = [
        "Bool", // Swift
        "Service", // swift-service-lifecycle
        "HTTPResponseError", "TracingMiddleware", // Hummingbird
        "NoOpTracer", // swift-distributed-tracing
    ]

    /// Every type declared in Sources/, by name (nested ones too: the table names `LoginVerdict`).
    static func declaredTypes() throws -> Set<String> {
        let declaration = try Regex("\\b(?:struct|enum|class|actor|protocol|typealias)\\s+([A-Za-z_][A-Za-z0-9_]*)")
        var names = Set<String>()
        let sources = root.appendingPathComponent("Sources")
        let files = FileManager.default.enumerator(atPath: sources.path)?.compactMap { $0 as? String } ?? []
        for file in files where file.hasSuffix(".swift") {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            for match in text.matches(of: declaration) {
                if let name = match.output[1].substring { names.insert(String(name)) }
            }
        }
        return names
    }

    static func isDirectory(_ url: URL) -> Bool {
        var directory: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &directory) && directory.boolValue
    }

    @Test("§1's \"Inside LatchkeyServer\": a row per folder, every Swift file named in its folder's row, every type it names exists")
    func moduleMap() throws {
        let inside = try Self.section("### Inside `LatchkeyServer`", of: Self.document())
        let rows = try Self.table(["Folder", "Contents"], in: inside, section: "§1 \"Inside LatchkeyServer\"")
        var byName: [String: Row] = [:]
        for row in rows {
            let name = Self.backticked(row.cells.first ?? "").first ?? row.cells.first ?? ""
            #expect(!byName.keys.contains(name), "\(Self.documentPath):\(row.line.number): a second row for `\(name)`; merge the two")
            byName[name] = row
        }
        let module = Self.root.appendingPathComponent("Sources/LatchkeyServer")
        let entries = try FileManager.default.contentsOfDirectory(atPath: module.path).sorted()
        let folders = entries.filter { Self.isDirectory(module.appendingPathComponent($0)) }
        let topFiles = entries.filter { $0.hasSuffix(".swift") && !folders.contains($0) }
        let expectedNames = Set(folders.map { "\($0)/" } + topFiles)
        for name in folders.map({ "\($0)/" }) + topFiles where byName[name] == nil {
            Issue.record("""
                \(Self.documentPath) §1 "Inside LatchkeyServer": Sources/LatchkeyServer/\(name) has no row; add "| `\(name)` | … |" \
                saying what it holds (every Swift file of a folder named in its row)
                """)
        }
        for (name, row) in byName where !expectedNames.contains(name) {
            Issue.record("\(Self.documentPath):\(row.line.number): the row `\(name)` names nothing in Sources/LatchkeyServer; rename it to the folder or file it describes now, or remove it")
        }

        let declared = try Self.declaredTypes()
        let targets = try Self.sourceTargets()
        for (name, row) in byName.sorted(by: { $0.value.line.number < $1.value.line.number }) {
            let named = Set(Self.backticked(row.line.text))
            let at = "\(Self.documentPath):\(row.line.number)"
            if name.hasSuffix("/") {
                let folder = module.appendingPathComponent(name)
                let files = (FileManager.default.enumerator(atPath: folder.path)?.compactMap { $0 as? String } ?? [])
                    .filter { $0.hasSuffix(".swift") }.sorted()
                for file in files {
                    let base = String((file.split(separator: "/").last ?? "").dropLast(".swift".count))
                    // One file per schema version (`Storage/Migrations/MigrationNN.swift`): §5's table of versions names
                    // them, row for row (`migrationTable`); here each must be a version `Migrations.all` lists.
                    if file.hasPrefix("Migrations/Migration"), let version = Int(base.dropFirst("Migration".count)) {
                        #expect(Migrations.all.contains { $0.version == version },
                                "\(at): Sources/LatchkeyServer/\(name)\(file) declares a version Migrations.all does not list")
                        continue
                    }
                    #expect(named.contains(base) || named.contains("\(base).swift"),
                            "\(at): the row of `\(name)` does not name Sources/LatchkeyServer/\(name)\(file); add `\(base)` to it, saying what it holds")
                }
            }
            // A name written like a type (UpperCamelCase, no dot, no space) must be a file of the folder or a declared type.
            for token in named.sorted() where token.first?.isUppercase == true && token.allSatisfy({ $0.isLetter || $0.isNumber }) {
                let file = name.hasSuffix("/") ? module.appendingPathComponent("\(name)\(token).swift") : nil
                let exists = file.map { FileManager.default.fileExists(atPath: $0.path) } ?? false
                #expect(exists || declared.contains(token) || Self.dependencyTypes.contains(token) || targets.contains(token),
                        "\(at): the row of `\(name)` names `\(token)`, but there is no Sources/LatchkeyServer/\(name.hasSuffix("/") ? name : "")\(token).swift and Sources/ declares no type `\(token)`; write the name the code uses now, or remove it")
            }
        }
    }

    /// The folders of Sources/: one per target (the CLI's is `latchkey`).
    static func sourceTargets() throws -> Set<String> {
        let sources = root.appendingPathComponent("Sources")
        return Set(try FileManager.default.contentsOfDirectory(atPath: sources.path).filter { isDirectory(sources.appendingPathComponent($0)) })
    }

    /// The layers under LatchkeyServer, whose rows of §1's target table name every file they hold.
    static let layers = ["LatchkeyRuntime", "LatchkeyDatabase", "LatchkeyTransport"]

    @Test("§1's table of targets: a row per folder of Sources/, and the layers' rows (runtime, database, transport) name every Swift file of their target")
    func targetTable() throws {
        let map = try Self.section("## 1. Module map", of: Self.document())
        let rows = try Self.table(["Target", "Holds", "Depends on"], in: map, section: "§1 \"Module map\"")
        var byTarget: [String: Row] = [:]
        for row in rows {
            if let name = Self.backticked(row.cells.first ?? "").first { byTarget[name] = row }
        }
        for target in try Self.sourceTargets().sorted() where byTarget[target] == nil {
            Issue.record("\(Self.documentPath) §1: Sources/\(target) has no row in the table of targets; add \"| `\(target)` | … | … |\"")
        }
        for layer in Self.layers {
            guard let row = byTarget[layer] else { continue }
            let named = Set(Self.backticked(row.line.text))
            let folder = Self.root.appendingPathComponent("Sources/\(layer)")
            let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".swift") }.sorted()
            for file in files {
                let base = String(file.dropLast(".swift".count))
                #expect(named.contains(base) || named.contains(file),
                        "\(Self.documentPath):\(row.line.number): the row of `\(layer)` does not name Sources/\(layer)/\(file); add `\(base)` to it, saying what it holds")
            }
        }
    }
}
