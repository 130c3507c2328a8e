import Foundation

/// A TOML basic string for a file Latchkey writes (`latchkey init`'s configuration, `latchkey admin clients
/// export`'s `[[oidc-client]]` tables): quotes and backslashes escaped, control characters as `\uXXXX`, so
/// that any name or address reads back as itself.
package enum TOMLString {
    package static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F: out += String(format: "\\u%04X", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
