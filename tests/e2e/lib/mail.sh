# shellcheck shell=bash
# tests/e2e/lib/mail.sh: building test messages from sample mail (bash,
# sourced; needs awk). Used by tests/e2e/run and scripts/demo.

# mail_variant FILE SEED: FILE with a pseudo-random 8-character token
# appended to every non-empty body line, printed on stdout: the hash-buster
# variant a spammer makes of one text. MIME boundary lines and the header
# blocks of MIME parts are left alone, so the structure stays valid. The same
# SEED gives the same variant (reproducible failures); different seeds give
# different tokens on every line. Meant for text bodies: a token appended to
# a base64 line corrupts it (harmless, but no longer a variant of the text).
mail_variant() {
  awk -v seed="$2" '
    BEGIN { srand(seed); body = 0; parthdr = 0
            abc = "abcdefghijklmnopqrstuvwxyz0123456789" }
    function token(   s, i) {
      s = ""
      for (i = 0; i < 8; i++) s = s substr(abc, int(rand() * 36) + 1, 1)
      return s
    }
    { line = $0; sub(/\r$/, "", line) }
    !body { print; if (line == "") body = 1; next }
    line ~ /^--/ { print; parthdr = 1; next }
    parthdr { print; if (line == "") parthdr = 0; next }
    line ~ /^[ \t]*$/ { print; next }
    { print line " " token() }
  ' "$1"
}

# mail_forge FILE: FILE with forged X-Mailwave-* headers (several spellings
# of the names, one unknown name) at the top and the bottom of its header
# block, printed on stdout. Every forged value contains "forged".
mail_forge() {
  awk '
    function top() {
      print "X-Mailwave-Wave: dup=exact; method=exact; sim=1.00; cluster=deadbeef; size=999; senders=999; first=2000-01-01T00:00:00Z; wave=yes; forged"
      print "x-mailwave-language: xx; score=100; bilingual=no; forged"
    }
    NR == 1 && /^From / { print; top(); next }
    NR == 1 { top() }
    !done && /^\r?$/ {
      print "X-MAILWAVE-WAVE: forged"
      print "X-Mailwave-Verdict: forged"
      done = 1
    }
    { print }
  ' "$1"
}

# mail_spin FILE SEED SHARE VOCAB: FILE with about SHARE (0..1) of the words
# of its text body replaced, each by a word drawn from the words of VOCAB (a
# message file): the copy a spinner makes from a spintax template, choosing
# other synonyms in every sentence. Header lines are left alone; meant for
# single-part text messages.
mail_spin() {
  awk -v seed="$2" -v share="$3" '
    BEGIN { srand(seed); n = 0 }
    FNR == NR {
      if (vbody) {
        m = split($0, w, /[^A-Za-z]+/)
        for (i = 1; i <= m; i++) if (length(w[i]) >= 2) vocab[++n] = tolower(w[i])
      } else if ($0 ~ /^\r?$/) vbody = 1
      next
    }
    { line = $0; sub(/\r$/, "", line) }
    !body { print line; if (line == "") body = 1; next }
    {
      out = ""; rest = line
      while (match(rest, /[A-Za-z]+/)) {
        word = substr(rest, RSTART, RLENGTH)
        if (n > 0 && rand() < share) word = vocab[int(rand() * n) + 1]
        out = out substr(rest, 1, RSTART - 1) word
        rest = substr(rest, RSTART + RLENGTH)
      }
      print out rest
    }
  ' "$4" "$1"
}

# mail_letters FILE SEED: FILE with a random token of 6-10 letters (no
# digits) appended to every non-empty body line: the letters-only hash
# buster. Same scope as mail_variant.
mail_letters() {
  awk -v seed="$2" '
    BEGIN { srand(seed); body = 0; abc = "abcdefghijklmnopqrstuvwxyz" }
    function token(   s, i, n) {
      n = 6 + int(rand() * 5); s = ""
      for (i = 0; i < n; i++) s = s substr(abc, int(rand() * 26) + 1, 1)
      return s
    }
    { line = $0; sub(/\r$/, "", line) }
    !body { print; if (line == "") body = 1; next }
    line ~ /^[ \t]*$/ { print; next }
    { print line " " token() }
  ' "$1"
}
