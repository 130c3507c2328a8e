#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Cryptographically secure random bytes from the kernel, all of them in one system call.
///
/// Why not `SystemRandomNumberGenerator`: it asks the kernel for eight bytes per call, so a login (a
/// 32-byte token, a challenge's 28 random bytes) made eight `getrandom` calls, and a sign-up's 64-byte
/// user handle eight more; on this VM each call costs about a microsecond of system time (issue 16).
/// Linux's `getrandom` fills up to 256 bytes in one call and never returns short for them once the
/// pool is ready. It is looked up at run time because Swift's Glibc module does not declare it; where
/// it is missing (or fails), the system generator is used, eight bytes at a time, as before.
enum RandomBytes {
    static func make(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        fill(&bytes)
        return bytes
    }

    /// Overwrites every byte of `bytes` with random ones.
    static func fill(_ bytes: inout [UInt8]) {
        var filled = 0
        if let getrandom = kernelFill {
            bytes.withUnsafeMutableBytes { buffer in
                while filled < buffer.count, let base = buffer.baseAddress {
                    let got = getrandom(base + filled, buffer.count - filled, 0)
                    // EINTR is the only error a blocking call with no flags can give here; anything
                    // else (ENOSYS under an old seccomp profile) hands the rest to the system generator.
                    if got > 0 { filled += got } else if got < 0, errno == EINTR { continue } else { break }
                }
            }
        }
        guard filled < bytes.count else { return }
        var generator = SystemRandomNumberGenerator()
        var index = filled
        while index < bytes.count {
            let word = generator.next()
            for shift in stride(from: 0, to: 64, by: 8) where index < bytes.count {
                bytes[index] = UInt8(truncatingIfNeeded: word >> UInt64(shift))
                index += 1
            }
        }
    }

    private typealias GetRandom = @convention(c) (UnsafeMutableRawPointer?, Int, UInt32) -> Int

    /// glibc's `getrandom`, when this C library has it.
    private static let kernelFill: GetRandom? = {
        #if os(Linux)
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "getrandom") else { return nil }
        return unsafeBitCast(symbol, to: GetRandom.self)
        #else
        return nil
        #endif
    }()
}
