#!/bin/sh
# make_tls_certs.sh DIR: the certificates of a private TLS redis-server, for
# tests/store/redis_store_test (tls_certs.h) and tests/e2e/run_redis --tls:
# a CA (ca.crt), a server certificate it signs for 127.0.0.1 and localhost
# (server.crt, server.key), a client certificate it signs (client.crt,
# client.key), and a second CA that signs nothing (other-ca.crt), to be
# refused with. EC P-256 keys: a set takes a few tens of milliseconds.
set -e
cd "$1"
key="-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes"
# shellcheck disable=SC2086
{
  openssl req -x509 $key -keyout ca.key -out ca.crt -days 2 -subj /CN=mailwave-test-ca
  openssl req -x509 $key -keyout other-ca.key -out other-ca.crt -days 2 \
    -subj /CN=mailwave-other-ca
  openssl req $key -keyout server.key -out server.csr -subj /CN=localhost
  echo "subjectAltName=IP:127.0.0.1,DNS:localhost" >server.ext
  openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial \
    -out server.crt -days 2 -extfile server.ext
  openssl req $key -keyout client.key -out client.csr -subj /CN=mailwave
  openssl x509 -req -in client.csr -CA ca.crt -CAkey ca.key -CAcreateserial \
    -out client.crt -days 2
}
chmod 600 ./*.key
