/// The header's value: a year, this host only (subdomains may be other services, not all of them on TLS).
package enum StrictTransportSecurity {
    package static let value = "max-age=31536000"
}
