/// Other projects' HTTP APIs that Latchkey can also serve, so that apps written for those servers work
/// unchanged when pointed at Latchkey (issue 15). Each is off unless named (`latchkey serve --compat …`).
///
/// They are translations, not second implementations: every request ends in the same `CeremonyService`,
/// `SessionService` and `Store` as Latchkey's own API, so the accounts, passkeys and sessions are the same
/// ones and every rule of DESIGN §5 holds there too (single-use expiring challenges, UV, empty
/// allowCredentials, hashed expiring tokens, validated input). Only the shapes on the wire differ.
///
/// They are not part of Latchkey's API document (`openapi.yaml`): their shapes are fixed by other
/// projects' clients, not by Latchkey, and they exist only when turned on, while the document describes
/// the API every Latchkey serves. `buildApplication` therefore adds them after `OpenAPIController` has
/// checked the router against the document.
public enum CompatibilityAPI: String, Sendable, CaseIterable, Hashable {
    /// The PHP server of LittleGreenViper/PassKeysDemo, as its iOS client `PKD_Handler` calls it:
    /// `GET|POST <path>?operation=create|login|read|update|logout|delete` (see `PassKeysDemoController`).
    case passKeysDemo = "passkeysdemo"
    /// Hanko's WWDC21 passkey demo (teamhanko/apple-wwdc21-webauthn-example and its iOS app "Shiny"):
    /// `/registration_initialize`, `/registration_finalize`, `/authentication_initialize`,
    /// `/authentication_finalize`, `/content`, `/logout` (see `HankoController`).
    case hanko

    /// PassKeysDemo's app is configured with the URL of the directory that holds `index.php`.
    public static let defaultPassKeysDemoPath = "/pkd/index.php"

    /// Why `path` cannot be where the PassKeysDemo API answers, or nil when it can: an absolute path of
    /// plain segments (no router wildcards or parameters), outside Latchkey's own `/api/` and `/.well-known/`.
    /// - Parameter path: the path to check, as `--compat-passkeysdemo-path` gives it.
    /// - Returns: the end of a sentence saying what is wrong ("must …"), or nil.
    public static func problem(withPassKeysDemoPath path: String) -> String? {
        guard path.hasPrefix("/"), path.count > 1, path.count <= 200 else { return "must be an absolute path such as /pkd/index.php" }
        let segments = path.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        guard segments.allSatisfy({ !$0.isEmpty }) else { return "must not have empty segments or end with /" }
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
        guard segments.allSatisfy({ $0.allSatisfy(allowed.contains) && $0 != "." && $0 != ".." }) else {
            return "may hold only letters, digits and - . _ ~ between its slashes"
        }
        guard segments[0] != "api", segments[0] != ".well-known" else { return "must not be inside Latchkey's own /api/ or /.well-known/" }
        return nil
    }
}
