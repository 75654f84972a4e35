# report-ham.sieve: a message taken out of Junk by the user; mailwave learns
# its cluster as ham, unless it went to Trash (90-mailwave-imapsieve.conf).
require ["vnd.dovecot.pipe", "copy", "imapsieve", "environment", "variables"];

if environment :matches "imap.mailbox" "*" {
  set "mailbox" "${1}";
}

if string "${mailbox}" "Trash" {
  stop;
}

if environment :matches "imap.user" "*" {
  set "username" "${1}";
}

pipe :copy "mailwave-learn" ["ham", "${username}"];
