import Foundation
@testable import LatchkeyRuntime
import Testing
@testable import LatchkeyServer

/// The one check of files that hold secrets (`OwnerOnlyFile.openToOthers`): the key file's sentence for any
/// group or other bits, except the group bits systemd's credentials show for the service user's ACL.
@Suite("Owner-only files")
struct OwnerOnlyFileTests {
    static func file(_ name: String, in directory: URL, mode: Int) throws -> String {
        let url = directory.appendingPathComponent(name)
        try Data("0123456789abcdef0123456789abcdef\n".utf8).write(to: url)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: url.path)
        return url.path
    }

    @Test("group or other bits are refused with the key file's sentence; the owner's alone is not")
    func modes() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-owner-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for mode in [0o600, 0o400] {
            #expect(OwnerOnlyFile.openToOthers("the secret file", at: try Self.file("s\(mode)", in: directory, mode: mode), credentialsDirectory: nil) == nil)
        }
        for mode in [0o640, 0o604, 0o620, 0o644, 0o440] {
            let path = try Self.file("s\(mode)", in: directory, mode: mode)
            #expect(OwnerOnlyFile.openToOthers("the secret file", at: path, credentialsDirectory: nil)?.description
                == "the secret file \(path) is readable by others (mode \(String(mode, radix: 8))); chmod 600 it")
        }
        #expect(OwnerOnlyFile.openToOthers("the secret file", at: directory.appendingPathComponent("none").path) == nil, "reading it says so")
    }

    @Test("in systemd's credentials directory the ACL's group bits (440) are accepted, other users' bits are not")
    func systemdCredentials() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-credentials-\(UUID().uuidString)")
        let credentials = root.appendingPathComponent("latchkey.service")
        try FileManager.default.createDirectory(at: credentials, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let granted = try Self.file("webhook-secret", in: credentials, mode: 0o440)
        #expect(OwnerOnlyFile.openToOthers("the webhook secret file", at: granted, credentialsDirectory: credentials.path) == nil)
        let everyone = try Self.file("introspection-secret", in: credentials, mode: 0o444)
        #expect(OwnerOnlyFile.openToOthers("the introspection secret file", at: everyone, credentialsDirectory: credentials.path) != nil)
        let outside = try Self.file("elsewhere", in: root, mode: 0o440)
        #expect(OwnerOnlyFile.openToOthers("the webhook secret file", at: outside, credentialsDirectory: credentials.path) != nil)
        #expect(OwnerOnlyFile.openToOthers("the webhook secret file", at: granted, credentialsDirectory: nil) != nil)
    }
}
