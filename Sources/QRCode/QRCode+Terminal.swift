extension QRCode {
    /// The symbol as lines of text for a terminal, two rows of modules per line (upper and lower half
    /// blocks), with a light quiet zone of `quietZone` modules around it (the standard asks for 4; 2 reads
    /// on a phone). With `colours` the lines carry ANSI black on white, so the code reads the same on a dark
    /// terminal as on a light one; without them, dark modules are the characters drawn, which suits a
    /// light background.
    public func terminalLines(quietZone: Int = 2, colours: Bool = true) -> [String] {
        let span = size + 2 * quietZone
        func dark(_ x: Int, _ y: Int) -> Bool {
            let (cx, cy) = (x - quietZone, y - quietZone)
            return (0..<size).contains(cx) && (0..<size).contains(cy) && isDark(x: cx, y: cy)
        }
        var lines: [String] = []
        for y in stride(from: 0, to: span, by: 2) {
            var line = colours ? "\u{1B}[30;47m" : ""
            for x in 0..<span {
                switch (dark(x, y), y + 1 < span && dark(x, y + 1)) {
                case (true, true): line += "█"
                case (true, false): line += "▀"
                case (false, true): line += "▄"
                case (false, false): line += " "
                }
            }
            lines.append(line + (colours ? "\u{1B}[0m" : ""))
        }
        return lines
    }
}
