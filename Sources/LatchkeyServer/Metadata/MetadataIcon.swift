import Foundation

/// An authenticator model's icon from the FIDO metadata (`metadataStatement.icon`, a `data:` URL), decoded
/// to be served as a file of this origin (`GET provider-icons/{aaguid}/metadata`), never put in the page as
/// a `data:` URL. The BLOB is the operator's and its signature was checked, but the icons in it are still
/// someone else's bytes: only a base64 PNG, WebP or SVG within `maximumSize` whose bytes are what the URL
/// says they are is taken, so that the `Content-Type` it is served with is exact and one of three.
struct MetadataIcon: Sendable, Equatable {
    /// `image/png`, `image/webp` or `image/svg+xml`.
    let mediaType: String
    let bytes: [UInt8]

    /// Decoded bytes; metadata icons are PNGs of a few KiB (the stored URL is at most 64 KiB as well).
    static let maximumSize = 64 * 1024

    static let mediaTypes = ["image/png", "image/webp", "image/svg+xml"]

    /// The icon in `dataURL` (`data:<type>;base64,<data>`, the type in any case), or nil when it is not one
    /// of the three types in base64, does not decode, is larger than `maximumSize`, or its bytes are not of
    /// its type (a PNG's signature, WebP's RIFF header, an SVG's `<svg` in UTF-8).
    init?(dataURL: String) {
        guard dataURL.utf8.count <= Self.maximumSize * 4 / 3 + 64, dataURL.lowercased().hasPrefix("data:"),
              let comma = dataURL.firstIndex(of: ",")
        else { return nil }
        let header = dataURL[dataURL.index(dataURL.startIndex, offsetBy: 5)..<comma].lowercased()
        guard header.hasSuffix(";base64") else { return nil }
        let mediaType = String(header.dropLast(";base64".count))
        guard Self.mediaTypes.contains(mediaType),
              let data = Data(base64Encoded: String(dataURL[dataURL.index(after: comma)...])),
              !data.isEmpty, data.count <= Self.maximumSize
        else { return nil }
        let bytes = Array(data)
        guard Self.matches(bytes, mediaType) else { return nil }
        self.mediaType = mediaType
        self.bytes = bytes
    }

    private static func matches(_ bytes: [UInt8], _ mediaType: String) -> Bool {
        switch mediaType {
        case "image/png":
            return bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        case "image/webp":
            return bytes.count >= 12 && bytes.starts(with: Array("RIFF".utf8)) && Array(bytes[8..<12]) == Array("WEBP".utf8)
        default:
            // Served under a sandboxing policy either way; this only keeps what is not an SVG at all out.
            guard let text = String(validating: bytes, as: UTF8.self), !text.contains("\0") else { return false }
            return text.contains("<svg")
        }
    }
}
