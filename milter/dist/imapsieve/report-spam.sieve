# report-spam.sieve: a message put into Junk by the user; mailwave learns
# its cluster as spam (90-mailwave-imapsieve.conf).
require ["vnd.dovecot.pipe", "copy", "imapsieve", "environment", "variables"];

if environment :matches "imap.user" "*" {
  set "username" "${1}";
}

pipe :copy "mailwave-learn" ["spam", "${username}"];
