extension Array where Element == UInt8 {
    /// `count` bytes of `source` from `start`, copied in one allocation. `Array(source[start..<end])` is the
    /// same bytes, but a debug build runs it through unspecialized generic copying that allocates two or
    /// three times (the counts gate measures a debug build: the decoders' field reads were a tenth of a
    /// registration's allocations). Out of range traps, as the slice would.
    package init(copying source: [UInt8], from start: Int, count: Int) {
        precondition(start >= 0 && count >= 0 && count <= source.count - start, "byte range out of bounds")
        self.init(unsafeUninitializedCapacity: count) { target, initialized in
            source.withUnsafeBufferPointer { from in
                if let to = target.baseAddress, let base = from.baseAddress, count > 0 {
                    to.initialize(from: base + start, count: count)
                }
            }
            initialized = count
        }
    }
}
