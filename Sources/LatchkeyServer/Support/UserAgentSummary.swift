/// A few words for a `User-Agent`, so that a person reading their own history can tell their devices
/// apart ("Chrome on Android", "Safari on iPhone"): approximate by nature, and never used for a decision.
enum UserAgentSummary {
    static func describe(_ userAgent: String?) -> String? {
        guard let ua = userAgent, !ua.isEmpty else { return nil }
        if ua.hasPrefix("latchkey/") || ua.hasPrefix("Latchkey") { return "latchkey command line" }
        let browser: String? =
            ua.contains("Edg/") ? "Edge"
            : ua.contains("OPR/") ? "Opera"
            : ua.contains("Firefox/") ? "Firefox"
            : ua.contains("Chrome/") || ua.contains("CriOS/") ? "Chrome"
            : ua.contains("Safari/") ? "Safari"
            : nil
        let system: String? =
            ua.contains("iPhone") ? "iPhone"
            : ua.contains("iPad") ? "iPad"
            : ua.contains("Android") ? "Android"
            : ua.contains("Windows") ? "Windows"
            : ua.contains("Mac OS X") || ua.contains("Macintosh") ? "macOS"
            : ua.contains("CrOS") ? "ChromeOS"
            : ua.contains("Linux") ? "Linux"
            : nil
        switch (browser, system) {
        case let (browser?, system?): return "\(browser) on \(system)"
        case let (browser?, nil): return browser
        case let (nil, system?): return system
        case (nil, nil): return String(ua.prefix(40))
        }
    }
}
