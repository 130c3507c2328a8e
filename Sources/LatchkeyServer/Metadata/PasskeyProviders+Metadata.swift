/// What the FIDO metadata adds to the community list: names for the AAGUIDs the list does not know
/// (security keys, mostly: the list is of passkey managers), and icons for those the list has none for.
/// The list's own names and SVGs win. A metadata icon is handed out only as a file of this origin
/// (`GET provider-icons/{aaguid}/metadata`, `ProviderIconController`), decoded and checked by
/// `MetadataIcon`, never as the metadata's `data:` URL.
extension PasskeyProviders {
    /// This table, completed for `aaguids` from the stored metadata: one lookup per AAGUID it has no
    /// icon for.
    func completed(for aaguids: some Sequence<[UInt8]>, from store: Store) async throws -> PasskeyProviders {
        var found: [[UInt8]: PasskeyProvider] = [:]
        for aaguid in Set(aaguids) where aaguid.contains(where: { $0 != 0 }) {
            let own = provider(aaguid: aaguid)
            if let own, own.iconLight != nil || own.iconDark != nil { continue }
            guard let record = try await store.metadata.entry(aaguid: aaguid) else { continue }
            let icon = record.icon.flatMap(MetadataIcon.init(dataURL:))
            if let own {
                if let icon { found[aaguid] = PasskeyProvider(name: own.name, iconLight: nil, iconDark: nil, metadataIcon: icon) }
            } else {
                found[aaguid] = PasskeyProvider(name: record.description, iconLight: nil, iconDark: nil, metadataIcon: icon)
            }
        }
        return found.isEmpty ? self : replacing(found)
    }
}
