// Test certificates for a private TLS redis-server, made with Debian's
// `openssl` command in a directory of the caller's: a CA, a server
// certificate it signs for 127.0.0.1 and localhost, a client certificate it
// signs, and a second CA that signs nothing (to be refused with). EC P-256
// keys: a set takes a few tens of milliseconds.
#ifndef MW_TESTS_STORE_TLS_CERTS_H_
#define MW_TESTS_STORE_TLS_CERTS_H_

#include <cstdlib>
#include <fstream>
#include <string>

#include "tests/store/redis_cluster_util.h"

namespace mw::store::testing {

struct TlsCerts {
  std::string ca, server_cert, server_key, client_cert, client_key, other_ca;

  static bool Available() { return !FindProgram("openssl").empty(); }

  // Writes the files under `dir`; false (with the commands' output in
  // dir/openssl.log) when openssl fails.
  bool Make(const std::string& dir) {
    ca = dir + "/ca.crt";
    server_cert = dir + "/server.crt";
    server_key = dir + "/server.key";
    client_cert = dir + "/client.crt";
    client_key = dir + "/client.key";
    other_ca = dir + "/other-ca.crt";
    std::ofstream(dir + "/server.ext")
        << "subjectAltName=IP:127.0.0.1,DNS:localhost\n";
    const std::string key =
        "-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes";
    const std::string d = "'" + dir + "'";
    const std::string script =
        "set -e; cd " + d + "; openssl req -x509 " + key +
        " -keyout ca.key -out ca.crt -days 2 -subj /CN=mailwave-test-ca"
        "; openssl req -x509 " +
        key +
        " -keyout other-ca.key -out other-ca.crt -days 2"
        " -subj /CN=mailwave-other-ca"
        "; openssl req " +
        key +
        " -keyout server.key -out server.csr -subj /CN=localhost"
        "; openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key"
        " -CAcreateserial -out server.crt -days 2 -extfile server.ext"
        "; openssl req " +
        key +
        " -keyout client.key -out client.csr -subj /CN=mwtest"
        "; openssl x509 -req -in client.csr -CA ca.crt -CAkey ca.key"
        " -CAcreateserial -out client.crt -days 2"
        "; chmod 600 *.key";
    const std::string command =
        "sh -c \"" + script + "\" > " + d + "/openssl.log 2>&1";
    return std::system(command.c_str()) == 0;
  }
};

}  // namespace mw::store::testing

#endif  // MW_TESTS_STORE_TLS_CERTS_H_
