# mailwave.sieve: files a message of a wave (X-Mailwave-Wave: ...; wave=yes,
# docs/waves.md) into Junk; everything else goes on (implicit keep: INBOX).
# The milter deletes X-Mailwave-* headers a sender forged.
# Dovecot: sieve_before = /etc/dovecot/sieve/mailwave.sieve (compile it with
# sievec); tests/e2e/run checks it with sieve-test.
require ["fileinto"];

if header :contains "X-Mailwave-Wave" "; wave=yes" {
  fileinto "Junk";
  stop;
}
