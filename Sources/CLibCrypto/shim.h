// The system's OpenSSL libcrypto (Debian: libssl-dev), for Ed448 signature verification only: swift-crypto
// has no Ed448, and Latchkey does not implement curves itself. WebAuthn's Ed448PublicKey is its one user.
#include <openssl/evp.h>
#include <openssl/err.h>
