#!/usr/bin/env python3
"""sa_rules.py: SpamAssassin header rules (milter/dist/mailwave.cf) applied in Python.

    sa_rules.py [--cf FILE] --check [HEADER_VALUE...]
    sa_rules.py [--cf FILE] HEADER_VALUE...

The evaluation scores thousands of X-Mailwave-Wave values; one spamassassin
process per value would take longer than the run. This module reads the rule
file and applies it with Python's re: the subset SpamAssassin rule files for
one header need, and an error for anything outside it (so a new construct in
mailwave.cf fails loudly instead of scoring 0):

  header NAME Header-Name =~ /re/flags      (also !~, m{re}, exists:Header-Name,
                                            [if-unset: TEXT])
  meta   NAME boolean/arithmetic expression of rule names (&& || ! + - * / < >
         <= >= == != and numbers)
  score  NAME s0 [s1 s2 s3]                 (score set 0 is used: -L, no Bayes)
  describe, tflags, priority, lang: ignored

As SpamAssassin does: a rule without a score line scores 1.0 (0.01 for T_
names), __ names never score, a rule with score 0 is not run; a header the
message lacks reads as the [if-unset] text (default empty); several copies of
a header are joined, each ending in a newline, so `$` matches before it. Perl
regex syntax is translated where Python differs (\\z, \\Z, \\h, (?<name>); \\Q,
\\K, \\G and embedded code are refused.

--check runs real spamassassin (-L -t, a rules directory holding only the rule
file, no user or site preferences, as tests/e2e/run does) on one small message
per header value and compares the rules hit and the score with this module's;
without values it uses the built-in SAMPLES (today's header grammar and issue
22's). Exit 0 when every value agrees, 1 when one differs, 77 when
spamassassin is not installed.

Python's standard library only.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_CF = os.path.normpath(os.path.join(HERE, "..", "..", "milter", "dist", "mailwave.cf"))

# Header values for --check without arguments: the grammar of docs/waves.md
# and issue 22's longer one, across the boundaries today's rules test.
SAMPLES = [
    "dup=near; method=blocks; sim=0.93; cluster=7f3a9c21; size=148; senders=97; first=2026-11-22T09:14:03Z; wave=yes",
    "dup=exact; method=exact; sim=1.00; cluster=00000001; size=2; senders=1; first=2026-11-22T09:14:03Z; wave=no",
    "dup=near; method=ctph; sim=0.71; cluster=abcdef01; size=5; senders=4; first=2026-11-22T09:14:03Z; wave=yes",
    "dup=near; method=simhash; sim=0.90; cluster=abcdef02; size=19; senders=5; first=2026-11-22T09:14:03Z; wave=yes",
    "dup=near; method=trailer; sim=0.95; cluster=abcdef03; size=20; senders=10; first=2026-11-22T09:14:03Z; wave=no",
    "dup=near; method=blocks; sim=0.93; cluster=7f3a9c21; size=148; senders=97; first=2026-11-22T09:14:03Z; rcpts=150; networks=41; kind=spread; why=senders; wave=yes",
    "dup=near; method=blocks; sim=0.88; cluster=1234abcd; size=12; senders=1; first=2026-11-22T08:00:00Z; rcpts=12; networks=1; kind=bulk; why=auth; wave=yes",
    "dup=exact; method=exact; sim=1.00; cluster=1234abce; size=9; senders=9; first=2026-11-22T08:00:00Z; rcpts=9; networks=1; kind=bulk; why=allow; wave=yes",
    "dup=near; method=containment; sim=0.97; cluster=1234abcf; size=3; senders=3; first=2026-11-22T08:00:00Z; rcpts=4; networks=3; kind=spread; why=spam; wave=no",
    "dup=near; method=reordered; sim=0.91; cluster=1234abd0; size=6; senders=6; first=2026-11-22T08:00:00Z; rcpts=8; networks=6; kind=spread; why=unauth; wave=yes",
    "dup=near; method=blocks; sim=0.99; cluster=1234abd1; size=30; senders=2; first=2026-11-22T08:00:00Z; rcpts=31; networks=25; kind=spread; why=networks; wave=yes",
    "dup=near; method=blocks; sim=0.99; cluster=1234abd2; size=7; senders=7; first=2026-11-22T08:00:00Z; rcpts=7; networks=7; kind=bulk; why=ham; wave=yes",
    None,  # no X-Mailwave-Wave header at all
]

# A rule file that uses every construct the evaluator claims (checked against
# spamassassin by --check-evaluator): meta rules, !~, exists:, defaults.
EVALUATOR_CF = r"""
header   __MWT_WAVE    X-Mailwave-Wave =~ /; wave=yes$/
header   __MWT_BULK    X-Mailwave-Wave =~ /\bkind=bulk;/
header   MWT_ABSENT    X-Mailwave-Wave !~ /^dup=/
header   MWT_EXISTS    exists:X-Mailwave-Wave
header   MWT_NOSCORE   X-Mailwave-Wave =~ /; size=\d{2,};/i
header   T_MWT_TEST    X-Mailwave-Wave =~ m{method=(?:ctph|simhash)}
header   MWT_ZERO      X-Mailwave-Wave =~ /dup=/
score    MWT_ZERO      0
meta     MWT_SPREAD    __MWT_WAVE && !__MWT_BULK
score    MWT_SPREAD    2.5
meta     MWT_SUM       (__MWT_WAVE + MWT_EXISTS + __MWT_BULK) >= 2
score    MWT_SUM       0.5 0.6 0.7 0.8
header   MWT_WHY       X-Mailwave-Wave =~ /why=(?:allow|ham)\b/
score    MWT_WHY       -3.0
describe MWT_WHY       wanted
"""


class RuleError(Exception):
    pass


def perl_to_python(pattern):
    """Translates the Perl regex features Python spells differently; refuses
    those it lacks."""
    for bad in (r"\Q", r"\E", r"\K", r"\G", "(?{", "(??{", "(?|", r"\p{", r"\P{"):
        if bad in pattern:
            raise RuleError("regex construct %s is not supported: %s" % (bad, pattern))
    out, i = [], 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and i + 1 < len(pattern):
            n = pattern[i + 1]
            if n == "z":
                out.append(r"\Z")
            elif n == "Z":
                out.append(r"(?=\n?\Z)")
            elif n == "h":
                out.append(r"[ \t]")
            elif n == "H":
                out.append(r"[^ \t]")
            else:
                out.append(c + n)
            i += 2
            continue
        if pattern.startswith("(?<", i) and pattern[i + 3:i + 4] not in ("=", "!"):
            out.append("(?P<")
            i += 3
            continue
        out.append(c)
        i += 1
    return "".join(out)


def parse_regex(text):
    """'/re/flags' or 'm{re}flags' (any delimiters) -> compiled pattern."""
    text = text.strip()
    if text.startswith("m") and len(text) > 1 and not text[1].isalnum():
        text = text[1:]
    if not text:
        raise RuleError("empty regex")
    open_d = text[0]
    close_d = {"{": "}", "(": ")", "[": "]", "<": ">"}.get(open_d, open_d)
    end = -1
    depth = 0
    i = 1
    while i < len(text):
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if open_d != close_d and c == open_d:
            depth += 1
        elif c == close_d:
            if depth == 0:
                end = i
                break
            depth -= 1
        i += 1
    if end < 0:
        raise RuleError("unterminated regex: " + text)
    body, flags_s = text[1:end], text[end + 1:].strip()
    flags = re.ASCII
    for f in flags_s:
        if f == "i":
            flags |= re.IGNORECASE
        elif f == "m":
            flags |= re.MULTILINE
        elif f == "s":
            flags |= re.DOTALL
        elif f == "x":
            flags |= re.VERBOSE
        else:
            raise RuleError("regex flag %r not supported: %s" % (f, text))
    if open_d == "/":
        body = body.replace(r"\/", "/")
    return re.compile(perl_to_python(body), flags)


class Rules:
    def __init__(self, text, name="rules"):
        self.header = {}   # name -> (header, op, regex or None for exists, unset)
        self.meta = {}     # name -> python expression
        self.scores = {}   # name -> float (score set 0)
        self.order = []
        for lineno, line in enumerate(text.splitlines(), 1):
            line = re.sub(r"(?:^|(?<=\s))(?<!\\)#.*$", "", line).replace(r"\#", "#").strip()
            if not line:
                continue
            parts = line.split(None, 2)
            kw = parts[0].lower()
            where = "%s:%d: " % (name, lineno)
            if kw in ("describe", "tflags", "priority", "lang", "reuse"):
                continue
            if len(parts) < 3:
                raise RuleError(where + "incomplete line: " + line)
            rule, rest = parts[1], parts[2]
            if kw == "header":
                self._header(rule, rest, where)
            elif kw == "meta":
                self.meta[rule] = rest
                self._add(rule)
            elif kw == "score":
                vals = rest.split()
                self.scores[rule] = float(vals[0])
            else:
                raise RuleError(where + "unsupported rule type %r" % kw)
        for rule, expr in self.meta.items():
            self.meta[rule] = self._meta_expr(expr, rule)

    def _add(self, rule):
        if rule not in self.order:
            self.order.append(rule)

    def _header(self, rule, rest, where):
        unset = ""
        m = re.search(r"\[if-unset:\s*(.*?)\]\s*$", rest)
        if m:
            unset, rest = m.group(1), rest[:m.start()].strip()
        if rest.startswith("exists:"):
            self.header[rule] = (rest[len("exists:"):].strip(), "exists", None, unset)
            self._add(rule)
            return
        m = re.match(r"(\S+)\s*(=~|!~)\s*(.+)$", rest)
        if not m:
            raise RuleError(where + "cannot read header rule: " + rest)
        hname, op, rx = m.groups()
        if ":" in hname:
            raise RuleError(where + "header modifiers (%s) are not supported" % hname)
        try:
            compiled = parse_regex(rx)
        except re.error as e:
            raise RuleError(where + "regex: %s" % e)
        self.header[rule] = (hname, op, compiled, unset)
        self._add(rule)

    def _meta_expr(self, expr, rule):
        tokens = re.findall(r"\d+(?:\.\d+)?|[A-Za-z_][A-Za-z0-9_]*|&&|\|\||[<>=!]=|[-+*/()<>!]|\S", expr)
        out = []
        for t in tokens:
            if t == "&&":
                out.append(" and ")
            elif t == "||":
                out.append(" or ")
            elif t == "!":
                out.append(" not ")
            elif re.match(r"[A-Za-z_]", t):
                out.append("h(%r)" % t)
            elif re.match(r"\d|[-+*/()<>]|[<>=!]=", t):
                out.append(t)
            else:
                raise RuleError("meta %s: unsupported token %r" % (rule, t))
        return "".join(out)

    def default_score(self, rule):
        if rule.startswith("__"):
            return 0.0
        if rule in self.scores:
            return self.scores[rule]
        return 0.01 if rule.startswith("T_") else 1.0

    def evaluate(self, headers):
        """headers: {lower-case name: [values]} -> (score, sorted hit names)."""
        hits = {}
        for rule, (hname, op, rx, unset) in self.header.items():
            if rule in self.scores and self.scores[rule] == 0:
                continue
            values = headers.get(hname.lower())
            if op == "exists":
                hits[rule] = bool(values)
                continue
            value = "".join(v + "\n" for v in values) if values else unset
            found = rx.search(value) is not None
            hits[rule] = found if op == "=~" else not found

        def h(name):
            if name in hits:
                return 1 if hits[name] else 0
            if name in self.meta:
                return 1 if resolve(name) else 0
            return 0

        busy = set()

        def resolve(name):
            if name in hits:
                return hits[name]
            if name in busy:
                raise RuleError("meta loop at " + name)
            busy.add(name)
            hits[name] = bool(eval(self.meta[name], {"__builtins__": {}}, {"h": h}))  # noqa: S307 - our own tokens only
            return hits[name]

        for rule in self.meta:
            if rule in self.scores and self.scores[rule] == 0:
                continue
            resolve(rule)
        names = sorted(r for r, v in hits.items()
                       if v and not r.startswith("__") and self.default_score(r) != 0)
        return round(sum(self.default_score(r) for r in names), 3), names

    def score_value(self, value, header="X-Mailwave-Wave"):
        """Score of a message whose only relevant header is `header: value`
        (None: the message has no such header)."""
        return self.evaluate({header.lower(): [] if value is None else [value]})


def load(path=DEFAULT_CF):
    with open(path, encoding="utf-8") as fh:
        return Rules(fh.read(), os.path.basename(path))


# ------------------------------------------------------------------ spamassassin

def spamassassin_available():
    return shutil.which("spamassassin") is not None


def spamassassin_scores(cf_text, values, header="X-Mailwave-Wave"):
    """Real spamassassin on one minimal message per value: [(score, hits)].
    Only `cf_text` is loaded (no distribution rules, no site or user prefs),
    network tests off (-L), no Bayes."""
    work = tempfile.mkdtemp(prefix="mw-sa-")
    try:
        os.makedirs(os.path.join(work, "rules"))
        os.makedirs(os.path.join(work, "site"))
        with open(os.path.join(work, "rules", "mailwave.cf"), "w") as fh:
            fh.write(cf_text)
        with open(os.path.join(work, "rules", "zz-eval.cf"), "w") as fh:
            fh.write("add_header all Status _YESNO_, score=_SCORE_ tests=_TESTSSCORES(,)_\n"
                     "util_rb_tld test\nuse_bayes 0\nrequired_score 5\n")
        with open(os.path.join(work, "site", "init.pre"), "w") as fh:
            fh.write("loadplugin Mail::SpamAssassin::Plugin::Check\n")
        open(os.path.join(work, "prefs"), "w").close()
        prefix = []
        if os.geteuid() == 0:
            # As nobody, HOME here: as root spamassassin writes /root/.spamassassin.
            subprocess.run(["chown", "-R", "nobody:nogroup", work], check=True)
            prefix = ["runuser", "-u", "nobody", "--"]
        out = []
        for i, v in enumerate(values):
            msg = ("From: a@sender.example\nTo: b@site.example\nSubject: sample %d\n"
                   "Message-ID: <%d@sender.example>\nDate: Sun, 22 Nov 2026 08:00:00 +0000\n" % (i, i))
            if v is not None:
                msg += "%s: %s\n" % (header, v)
            msg += "\nbody\n"
            p = subprocess.run(prefix + ["env", "HOME=" + work, "spamassassin", "-L", "-t",
                                         "-C", os.path.join(work, "rules"),
                                         "--siteconfigpath", os.path.join(work, "site"),
                                         "-p", os.path.join(work, "prefs")],
                               input=msg.encode(), capture_output=True, timeout=120)
            text = p.stdout.decode("utf-8", "replace")
            m = re.search(r"^X-Spam-Status: (.*(?:\n[ \t].*)*)", text, re.M)
            if not m:
                raise RuntimeError("spamassassin gave no X-Spam-Status: "
                                   + p.stderr.decode("utf-8", "replace")[-500:])
            status = re.sub(r"\s+", "", m.group(1))
            tests = status.split("tests=", 1)[1]
            hits = []
            total = 0.0
            if tests != "none":
                for item in tests.split(","):
                    name, sc = item.split("=")
                    hits.append(name)
                    total += float(sc)
            out.append((round(total, 3), sorted(hits)))
        return out
    finally:
        shutil.rmtree(work, ignore_errors=True)


def compare(cf_text, values, name="rules", out=sys.stdout):
    """Python and spamassassin on `values`; returns the number that differ."""
    rules = Rules(cf_text, name)
    sa = spamassassin_scores(cf_text, values)
    bad = 0
    for v, (sa_score, sa_hits) in zip(values, sa):
        py_score, py_hits = rules.score_value(v)
        ok = abs(py_score - sa_score) < 1e-6 and py_hits == sa_hits
        bad += not ok
        print("%s  sa %5.2f %-60s py %5.2f %s" % (
            "ok  " if ok else "DIFF", sa_score, ",".join(sa_hits) or "-",
            py_score, "" if ok else ",".join(py_hits) or "-"), file=out)
        if not ok:
            print("      value: %s" % v, file=out)
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cf", default=DEFAULT_CF, help="the rule file (default: milter/dist/mailwave.cf)")
    ap.add_argument("--check", action="store_true",
                    help="compare with spamassassin (the values given, else the built-in samples, "
                         "and the evaluator's own construct set)")
    ap.add_argument("values", nargs="*", help="X-Mailwave-Wave values ('-' for none)")
    args = ap.parse_args()
    values = [None if v == "-" else v for v in args.values]
    with open(args.cf, encoding="utf-8") as fh:
        cf_text = fh.read()
    if not args.check:
        rules = Rules(cf_text, os.path.basename(args.cf))
        for v in values:
            s, hits = rules.score_value(v)
            print("%5.2f  %s" % (s, ",".join(hits) or "-"))
        return 0
    if not spamassassin_available():
        print("sa_rules: spamassassin is not installed; skipped")
        return 77
    print("== %s on %d values" % (args.cf, len(values or SAMPLES)))
    bad = compare(cf_text, values or SAMPLES, os.path.basename(args.cf))
    if not args.values:
        print("== the evaluator's construct set (meta, !~, exists:, default scores)")
        bad += compare(EVALUATOR_CF, SAMPLES, "evaluator.cf")
    print("%s" % ("all agree" if not bad else "%d differ" % bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
