// Test certificates for a private TLS redis-server, made by
// tests/store/make_tls_certs.sh (Debian's `openssl` command) in a directory
// of the caller's: a CA, a server certificate it signs for 127.0.0.1 and
// localhost, a client certificate it signs, and a second CA that signs
// nothing (to be refused with).
#ifndef MW_TESTS_STORE_TLS_CERTS_H_
#define MW_TESTS_STORE_TLS_CERTS_H_

#include <cstdlib>
#include <string>

#include "tests/store/redis_cluster_util.h"

namespace mw::store::testing {

struct TlsCerts {
  std::string ca, server_cert, server_key, client_cert, client_key, other_ca;

  static bool Available() { return !FindProgram("openssl").empty(); }

  // Writes the files under `dir`; false (with openssl's output in
  // dir/openssl.log) when it fails.
  bool Make(const std::string& dir) {
    ca = dir + "/ca.crt";
    server_cert = dir + "/server.crt";
    server_key = dir + "/server.key";
    client_cert = dir + "/client.crt";
    client_key = dir + "/client.key";
    other_ca = dir + "/other-ca.crt";
    const std::string command = std::string("sh '") + MW_SOURCE_DIR +
                                "/tests/store/make_tls_certs.sh' '" + dir +
                                "' > '" + dir + "/openssl.log' 2>&1";
    return std::system(command.c_str()) == 0;
  }
};

}  // namespace mw::store::testing

#endif  // MW_TESTS_STORE_TLS_CERTS_H_
