import Crypto
import Foundation

extension ServerConfiguration {
    /// The key-encryption key, from the key file (made when absent), or a new one in memory.
    func keyEncryptionKey() throws(Invalid) -> SymmetricKey {
        guard let path = effectiveKeyFile else { return SymmetricKey(size: .bits256) }
        return try KeyFile.loadOrCreate(at: path)
    }
}
