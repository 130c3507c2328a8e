/// CLDR's cardinal plural rules for whole numbers, for the languages shipped (the browser has
/// `Intl.PluralRules`; the server, for its mails and pages, has this). Only integers are counted here —
/// the server never says "1.5 passkeys" — so the rules' fraction conditions (`v`, `f`) are left out.
/// Source: CLDR's plurals.xml (Unicode CLDR 44), the integer part of each rule.
package enum PluralRules {
    package enum Category: String, Sendable {
        case zero, one, two, few, many, other
    }

    package static func category(of count: Int, language: String) -> Category {
        let n = count.magnitude
        let primary = language.lowercased().split(separator: "-").first.map(String.init) ?? ""
        switch primary {
        case "ja", "zh", "ko":
            return .other
        case "fr", "pt":
            // fr and pt (Brazil): 0 and 1 are "one"; a million and its multiples are "many".
            if n <= 1 { return .one }
            return n != 0 && n % 1_000_000 == 0 ? .many : .other
        case "es", "it":
            if n == 1 { return .one }
            return n != 0 && n % 1_000_000 == 0 ? .many : .other
        case "pl":
            if n == 1 { return .one }
            if (2...4).contains(n % 10), !(12...14).contains(n % 100) { return .few }
            return .many
        case "ar":
            if n == 0 { return .zero }
            if n == 1 { return .one }
            if n == 2 { return .two }
            if (3...10).contains(n % 100) { return .few }
            if (11...99).contains(n % 100) { return .many }
            return .other
        default:
            // en, de, nl and the pseudo-locale.
            return n == 1 ? .one : .other
        }
    }
}
