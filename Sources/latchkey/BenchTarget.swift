import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The server the benchmark drives: one it started, or one given by `--server URL` (an instance, or a
/// proxy in front of several). The lean load generator speaks to an IPv4 address, resolved once here.
struct BenchTarget: Sendable {
    /// `http://host:port`, for AsyncHTTPClient.
    let base: String
    /// The origin the passkeys belong to (the public one: a proxy's, when the URL is an instance behind it).
    let origin: String
    /// The resolved IPv4 address and port, for the lean load generator.
    let address: String
    let port: Int
    /// The `Host` header: the URL's host and port.
    let host: String

    init(url text: String, origin: String?) throws {
        guard let url = URLComponents(string: text), url.scheme == "http", let name = url.host, !name.isEmpty else {
            throw BenchAPI.Failure(description: "--server must be an http:// URL such as http://localhost:8090, not \(text)")
        }
        let port = url.port ?? 80
        self.base = "http://\(name):\(port)"
        self.origin = origin ?? (url.port == nil ? "http://\(name)" : base)
        self.port = port
        self.host = url.port == nil ? name : "\(name):\(port)"
        self.address = try Self.resolve(name)
    }

    /// The first IPv4 address of `name`.
    private static func resolve(_ name: String) throws -> String {
        var hints = addrinfo()
        hints.ai_family = AF_INET
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(name, nil, &hints, &result) == 0, let first = result, let socketAddress = first.pointee.ai_addr else {
            throw BenchAPI.Failure(description: "\(name) has no IPv4 address")
        }
        defer { freeaddrinfo(result) }
        var address = socketAddress.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
        var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
        guard inet_ntop(AF_INET, &address, &text, socklen_t(text.count)) != nil else {
            throw BenchAPI.Failure(description: "\(name)'s address cannot be written")
        }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
