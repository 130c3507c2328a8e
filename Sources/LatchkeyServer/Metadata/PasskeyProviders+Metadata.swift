/// Names from the FIDO metadata for the AAGUIDs the community list does not know (security keys, mostly:
/// the list is of passkey managers). The metadata's icons are not used: the page shows the list's SVGs,
/// served from this origin by `ProviderIconController`, and the metadata's are PNG data URLs.
extension PasskeyProviders {
    /// This table, completed for `aaguids` from the stored metadata: one lookup per AAGUID it lacks.
    func completed(for aaguids: some Sequence<[UInt8]>, from store: Store) async throws -> PasskeyProviders {
        var found: [[UInt8]: PasskeyProvider] = [:]
        for aaguid in Set(aaguids) where provider(aaguid: aaguid) == nil && aaguid.contains(where: { $0 != 0 }) {
            if let record = try await store.metadataEntry(aaguid: aaguid) {
                found[aaguid] = PasskeyProvider(name: record.description, iconLight: nil, iconDark: nil)
            }
        }
        return found.isEmpty ? self : adding(found)
    }
}
