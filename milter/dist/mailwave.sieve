# mailwave.sieve: files a copy of a spread wave (X-Mailwave-Wave: ...;
# kind=spread; ...; wave=yes, docs/waves.md) and a copy of a cluster the site
# learned as spam (why=spam) into Junk; wanted bulk (kind=bulk: newsletters,
# lists, receipts) and everything else goes on (implicit keep: INBOX).
# The milter deletes X-Mailwave-* headers a sender forged.
# Dovecot: sieve_before = /etc/dovecot/sieve/mailwave.sieve (compile it with
# sievec); tests/e2e/run checks it with sieve-test.
require ["fileinto"];

if anyof (allof (header :contains "X-Mailwave-Wave" "; kind=spread; ",
                 header :contains "X-Mailwave-Wave" "; wave=yes"),
          header :contains "X-Mailwave-Wave" "; why=spam;") {
  fileinto "Junk";
  stop;
}
