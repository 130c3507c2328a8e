@testable import LatchkeyDatabase
import Testing
@testable import LatchkeyServer

/// Configuration errors are printed and logged; the secrets a setting may carry must not be.
@Suite("Secrets in configuration errors")
struct ConfigurationSecretsTests {
    @Test("a database URL that is not understood is refused without repeating its password")
    func databasePasswordNotRepeated() {
        for text in ["mysql://app:hunter2@db/app", "postgress://app:hunter2@db/app", "hunter2"] {
            #expect(throws: ServerConfiguration.Invalid.self) { try DatabaseLocation(parsing: text) }
            do {
                _ = try DatabaseLocation(parsing: text)
            } catch {
                #expect(!error.description.contains("hunter2"), "\(error.description)")
                #expect(error.description.contains("neither sqlite"))
            }
        }
    }

    @Test("a PostgreSQL location is written without its password")
    func locationDescription() throws {
        let location = try DatabaseLocation(parsing: "postgres://app:hunter2@db:5432/app")
        #expect(!location.description.contains("hunter2"))
        #expect(location.description.contains("app@db:5432/app") || location.description.contains("***"))
    }
}
