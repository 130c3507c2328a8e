/// The one way the server puts text into HTML it renders (the OpenID Connect error page, Hanko's
/// `/content`): every `&`, `<`, `>`, `"` and `'` becomes an entity, decided per Unicode scalar.
///
/// Per scalar, never per `Character`: a Prepend scalar (U+0600, U+0D4E, U+110BD, …) forms one grapheme
/// cluster with the `<` after it, and a combining mark or a ZWJ one with the `<` before it; such a cluster
/// compares unequal to `"<"`, and a per-`Character` escaper let it out raw. Review 3 found that in Hanko's
/// page (S3-6), review 4 again in the OpenID Connect error page's own copy (S4-1), where an injected
/// `<meta http-equiv=refresh>` made `/authorize` an open redirector. One function, so there is no copy to
/// get wrong; `HTMLTextTests` feeds it, and every page that shows a caller's text, each scalar class.
enum HTMLText {
    static func escaped(_ text: String) -> String {
        var escaped = ""
        escaped.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": escaped.unicodeScalars.append(contentsOf: "&amp;".unicodeScalars)
            case "<": escaped.unicodeScalars.append(contentsOf: "&lt;".unicodeScalars)
            case ">": escaped.unicodeScalars.append(contentsOf: "&gt;".unicodeScalars)
            case "\"": escaped.unicodeScalars.append(contentsOf: "&quot;".unicodeScalars)
            case "'": escaped.unicodeScalars.append(contentsOf: "&#39;".unicodeScalars)
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }
}
