import Foundation

extension ServerConfiguration {
    /// The admin API's own address, when it has one.
    func validateAdmin() throws(Invalid) {
        if adminListen != nil, adminAddress == nil {
            throw Invalid(description: "--admin-listen must be HOST:PORT (127.0.0.1:9090, [::1]:9090), not \(adminListen ?? "")")
        }
    }
}
