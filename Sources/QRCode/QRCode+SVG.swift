extension QRCode {
    /// The symbol as an SVG image, one unit per module with a light quiet zone of `quietZone`, dark modules
    /// as one path of unit squares: for a page to show (as an `<img>` or inline), scaled by CSS. It holds no
    /// text from the encoded bytes, so nothing in them can reach the markup.
    public func svg(quietZone: Int = 4) -> String {
        let span = size + 2 * quietZone
        var path = ""
        for y in 0..<size {
            for x in 0..<size where isDark(x: x, y: y) { path += "M\(x + quietZone) \(y + quietZone)h1v1h-1z" }
        }
        return "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(span) \(span)\" shape-rendering=\"crispEdges\">"
            + "<rect width=\"\(span)\" height=\"\(span)\" fill=\"#fff\"/><path d=\"\(path)\" fill=\"#000\"/></svg>"
    }
}
