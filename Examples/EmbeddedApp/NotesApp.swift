import Foundation
import Hummingbird
import LatchkeyServer
import NIOCore

/// A tiny notes app that signs people in with Latchkey: one note per account, behind the passkey
/// sign-in. Everything passkey-related is three lines — open Latchkey, mount it, put its middleware in
/// front of the routes that need an account; the rest is the app's own.

/// The app's request context: what Latchkey needs (the peer address, a place for the account), and
/// Latchkey's gated JSON decoder for the app's own bodies — Hummingbird's default hands them straight to
/// Foundation, which traps on JSON nested 513 deep.
struct NotesContext: LatchkeyRequestContext {
    var coreContext: CoreRequestContextStorage
    let remoteAddress: SocketAddress?
    var latchkeyAccount: LatchkeyAccount?
    var requestDecoder: LatchkeyJSONRequestDecoder { LatchkeyJSONRequestDecoder() }

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }
}

/// The app's own data, kept apart from Latchkey's and keyed by the account id Latchkey gives it. In
/// memory to keep the example short; a real app would use its own table.
actor NoteStore {
    private var notes: [String: String] = [:]

    func note(of account: String) -> String { notes[account] ?? "" }
    func setNote(_ text: String, of account: String) { notes[account] = text }
}

struct NoteJSON: ResponseCodable {
    let text: String
}

/// Builds the app: Latchkey at `/auth` (its API at `/auth/api/…`, its page at `/auth/`), the notes at
/// `/notes` for signed-in callers only.
func buildNotesApp(configuration: ServerConfiguration, notes: NoteStore = NoteStore()) async throws -> some ApplicationProtocol {
    let latchkey = try await Latchkey.open(configuration: configuration)
    let router = Router(context: NotesContext.self)
    try latchkey.mount(on: router, at: "auth", page: true)

    let signedIn = router.group("notes").add(middleware: latchkey.authentication())
    signedIn.get { _, context -> NoteJSON in
        // The middleware answered 401 for anyone without a session, so the account is there.
        guard let account = context.latchkeyAccount else { throw HTTPError(.unauthorized) }
        return NoteJSON(text: await notes.note(of: account.id))
    }
    signedIn.put { request, context -> NoteJSON in
        guard let account = context.latchkeyAccount else { throw HTTPError(.unauthorized) }
        let note = try await request.decode(as: NoteJSON.self, context: context)
        // Counted in bytes: one "character" (grapheme cluster) can be 60 KB of combining marks.
        guard note.text.utf8.count <= 4000 else { throw HTTPError(.badRequest, message: "A note holds at most 4000 bytes of UTF-8.") }
        await notes.setNote(note.text, of: account.id)
        return note
    }
    router.get("/") { _, _ in
        Response(status: .seeOther, headers: [.location: "/auth/"])
    }

    // `.latchkey(configuration)`: `latchkey serve`'s idle, head and body deadlines and connection bounds.
    return Application(
        router: router,
        server: .latchkey(configuration),
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "Notes"),
        services: latchkey.services)
}
