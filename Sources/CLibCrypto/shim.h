// OpenSSL's libcrypto (Debian: libssl-dev): the EVP digests and ciphers that vendor beacons'
// authentication uses (MD5 for KBeacon's challenge-response, AES-128 for Eddystone's unlock).
#include <openssl/evp.h>
