import Foundation
import WebAuthn

/// A passkey provider as people know it ("Apple Passwords", "Google Password Manager", "1Password"), named
/// by the AAGUID its passkeys carry in their authenticator data.
struct PasskeyProvider: Sendable, Equatable {
    let name: String
    /// Icons for light and dark backgrounds; either may be missing from the table.
    let iconLight: ProviderIcon?
    let iconDark: ProviderIcon?
    /// The FIDO metadata's icon, for a provider the table has no icon for (`completed(for:from:)`).
    var metadataIcon: MetadataIcon? = nil
}

/// One SVG icon in both of the forms it is handed out in, both made when the table loads: the table's
/// `data:image/svg+xml;base64,…` URL for native clients, and the decoded SVG for the icon route.
struct ProviderIcon: Sendable, Equatable {
    let dataURL: String
    let svg: [UInt8]
}

/// The AAGUID → provider table: the community list of passkey provider AAGUIDs
/// (github.com/passkeydeveloper/passkey-authenticator-aaguids, `aaguid.json`), shipped as data in
/// `ProviderData/` with its source named there, and refreshed by `scripts/refresh-aaguids`.
///
/// It names passkeys in lists and nothing else: an AAGUID is what the authenticator *claims* to be, and
/// with attestation `none` nobody vouches for it. No security decision reads this table. Where it has no
/// name for an AAGUID, the FIDO metadata may have one (`completed(for:from:)`).
struct PasskeyProviders: Sendable {
    /// Keyed by the AAGUID's 16 bytes.
    private var providers: [[UInt8]: PasskeyProvider]

    var count: Int { providers.count }

    /// The table shipped with Latchkey. A missing or unreadable file is a packaging error reported at
    /// start-up, like the page's files.
    static func bundled() throws -> PasskeyProviders {
        guard let url = Bundle.module.url(forResource: "aaguid", withExtension: "json", subdirectory: "ProviderData") else {
            throw ServerConfiguration.Invalid(description: "the passkey provider table ProviderData/aaguid.json is missing from the installation")
        }
        do {
            return try PasskeyProviders(json: Data(contentsOf: url))
        } catch {
            throw ServerConfiguration.Invalid(description: "the passkey provider table ProviderData/aaguid.json cannot be read: \(error)")
        }
    }

    /// Reads the list's own format: `{"<aaguid>": {"name": …, "icon_light"?: …, "icon_dark"?: …}}`.
    /// Entries with a malformed AAGUID or no name are refused as a whole file: the file is ours, so a
    /// bad entry is a bad refresh, to be seen, not skipped.
    init(json: Data) throws(Malformed) {
        guard let object = try? JSONSerialization.jsonObject(with: json), let entries = object as? [String: Any] else {
            throw Malformed(description: "not a JSON object")
        }
        var providers: [[UInt8]: PasskeyProvider] = [:]
        for (key, value) in entries {
            guard key == key.lowercased(), let aaguid = Self.bytes(uuid: key) else {
                throw Malformed(description: "\(key) is not a lowercase UUID")
            }
            guard let entry = value as? [String: Any], let name = entry["name"] as? String,
                  !name.trimmingCharacters(in: .whitespaces).isEmpty
            else { throw Malformed(description: "\(key) has no name") }
            let light = try Self.icon(entry["icon_light"], key: key)
            let dark = try Self.icon(entry["icon_dark"], key: key)
            providers[aaguid] = PasskeyProvider(name: name, iconLight: light, iconDark: dark)
        }
        self.providers = providers
    }

    /// This table with `others` in place of its own entries for the same AAGUIDs.
    func replacing(_ others: [[UInt8]: PasskeyProvider]) -> PasskeyProviders {
        var copy = self
        copy.providers.merge(others) { _, other in other }
        return copy
    }

    /// The provider whose passkeys carry `aaguid`, or nil: the all-zero AAGUID (an authenticator that
    /// does not say) and any AAGUID the list does not hold.
    func provider(aaguid: [UInt8]) -> PasskeyProvider? {
        providers[aaguid]
    }

    /// The AAGUIDs of the providers called `name` (any case), sorted: an operator searching by provider.
    func aaguids(named name: String) -> [[UInt8]] {
        let wanted = name.lowercased()
        return providers.filter { $0.value.name.lowercased() == wanted }.map(\.key).sorted { $0.lexicographicallyPrecedes($1) }
    }

    struct Malformed: Error, CustomStringConvertible, Sendable {
        let description: String
    }

    static let iconPrefix = "data:image/svg+xml;base64,"

    private static func icon(_ value: Any?, key: String) throws(Malformed) -> ProviderIcon? {
        guard let value else { return nil }
        guard let url = value as? String, url.hasPrefix(iconPrefix),
              let svg = Data(base64Encoded: String(url.dropFirst(iconPrefix.count)))
        else {
            throw Malformed(description: "an icon of \(key) is not a base64 SVG data URL")
        }
        return ProviderIcon(dataURL: url, svg: Array(svg))
    }

    /// The 16 bytes of an AAGUID written as a UUID, in either case.
    static func bytes(uuid: String) -> [UInt8]? {
        guard let uuid = UUID(uuidString: uuid) else { return nil }
        return withUnsafeBytes(of: uuid.uuid) { Array($0) }
    }
}
