import Foundation
import LatchkeyServer

// `swift run EmbeddedApp` — the notes app on http://localhost:8081, its data in ./notes.sqlite.
// PORT and DATABASE (sqlite:PATH or postgres://…) change that.
let environment = ProcessInfo.processInfo.environment
var configuration = ServerConfiguration()
configuration.port = environment["PORT"].flatMap(Int.init) ?? 8081
configuration.origins = ["http://localhost:\(configuration.port)"]
do {
    configuration.database = try DatabaseLocation(parsing: environment["DATABASE"] ?? "sqlite:notes.sqlite")
    let app = try await buildNotesApp(configuration: configuration)
    print("Notes on http://localhost:\(configuration.port) — sign in at /auth/, then GET or PUT /notes")
    try await app.runService()
} catch let invalid as ServerConfiguration.Invalid {
    FileHandle.standardError.write(Data("EmbeddedApp: \(invalid.description)\n".utf8))
    exit(2)
}
