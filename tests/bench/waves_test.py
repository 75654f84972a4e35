#!/usr/bin/env python3
"""waves_test.py: keeps bench/waves honest and runnable (issue 22).

    waves_test.py [CORPUS]

Generates both halves with --limit 2 (a few seconds) and checks what the
evaluation's labels rest on:
  * the halves split the corpus files by name, byte-identical messages (same
    md5 in the name) together, and no scenario of one half uses a file of the
    other;
  * the site's Authentication-Results (authserv-id mx.site.example) stands
    above the first Received in newsletters, lists and signed spam, and the
    forged one below it in the forged-brand wave, with no trusted pass above;
  * envelope senders have the VERP forms of their kind and name their
    recipient; networks are one /24 or one per copy as the kind says; the allow
    file covers the ip_allow wave's clients; learn steps are where the runner
    expects them; arrival offsets never go back;
  * the rule evaluator reads milter/dist/mailwave.cf, and, when spamassassin is
    installed, agrees with it on three header values.
Exit 0 when all hold, 1 with the failures listed, 77 (skip) without the dev
corpus (CORPUS, default MW_SOURCE_DIR/../shared/data/mail).

Python's standard library only.
"""

import email
import email.policy
import ipaddress
import json
import os
import re
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.environ.get("MW_SOURCE_DIR") or os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "bench", "waves"))
import generate  # noqa: E402
import sa_rules  # noqa: E402

FAILS = []


def check(cond, what):
    if not cond:
        FAILS.append(what)
    return cond


def fields(path):
    """[(name lower, value unfolded)] of the header block, in order."""
    with open(path, "rb") as fh:
        block, _ = generate.split_message(fh.read())
    h = generate.Head(block)
    out = []
    for name, raw in h.fields:
        if name is None:
            continue
        v = raw.split(b":", 1)[1]
        out.append((name.decode(), re.sub(r"\s+", " ", v.decode("latin-1")).strip()))
    return out


def trusted(value):
    return value.split(";", 1)[0].strip().lower() == generate.AUTHSERV


def ar_split(fs):
    """(A-R values above the first Received, those below it)."""
    first = next(i for i, (n, _) in enumerate(fs) if n == "received")
    above = [v for n, v in fs[:first] if n == "authentication-results"]
    below = [v for n, v in fs[first + 1:] if n == "authentication-results"]
    return above, below


def net24(ip):
    return ipaddress.ip_network(ip + "/24", strict=False)


def body_text(path):
    with open(path, "rb") as fh:
        msg = email.message_from_binary_file(fh, policy=email.policy.compat32)
    out = []
    for part in msg.walk():
        if part.get_content_maintype() == "text":
            out.append((part.get_payload(decode=True) or b"").decode("latin-1"))
    return "\n".join(out)


def check_scenario(d, sc):
    sid, kind, copies = sc["id"], sc["kind"], sc["copies"]
    check(len(copies) == generate.COPIES[kind], "%s: %d copies" % (sid, len(copies)))
    offs = [c["offset_s"] for c in copies]
    check(offs == sorted(offs), "%s: offsets go back" % sid)
    nets = {net24(c["client_ip"]) for c in copies}
    domains = [c["sender"].rsplit("@", 1)[1] for c in copies]
    for i, c in enumerate(copies, 1):
        path = os.path.join(d, c["file"])
        fs = fields(path)
        where = "%s copy %d" % (sid, i)
        check(fs[0][0] in ("received", "authentication-results"), where + ": starts with " + fs[0][0])
        rec = next(v for n, v in fs if n == "received")
        check("by %s" % generate.AUTHSERV in rec and "[%s]" % c["client_ip"] in rec,
              where + ": first Received is not the site's for the client")
        above, below = ar_split(fs)
        rcpt_users = [r.split("@")[0] for r in c["rcpts"]]
        if kind == "newsletter":
            check(len(above) == 1 and trusted(above[0]) and "dkim=pass" in above[0]
                  and "spf=pass smtp.mailfrom=%s" % c["sender"] in above[0],
                  where + ": site A-R above Received: %s" % above)
            check(not below, where + ": A-R below Received")
            m = re.match(r"^(?:bounce-[0-9a-f]{16}@bounce\.[a-z0-9.-]+|news\+([a-z]+)=site\.example@[a-z0-9.-]+)$",
                         c["sender"])
            check(m and (m.group(1) is None or m.group(1) == rcpt_users[0]),
                  where + ": VERP sender %s" % c["sender"])
            to = dict(fs).get("to", "")
            check(c["rcpts"] == [to.split("<")[-1].rstrip(">")], where + ": To: %s" % to)
            first = rcpt_users[0].capitalize()
            check("Dear %s," % first in body_text(path), where + ": no greeting for " + first)
        elif kind == "list":
            check(len(above) == 1 and trusted(above[0]) and
                  ("header.d=%s" % generate.LIST_HOST in above[0] or
                   "smtp.mailfrom=%s" % c["sender"] in above[0]),
                  where + ": list A-R %s" % above)
            check(not below, where + ": A-R below Received")
            check(re.match(r"^[a-z0-9-]+-bounces\+%s=site\.example@%s$"
                           % (rcpt_users[0], re.escape(generate.LIST_HOST)), c["sender"]),
                  where + ": Mailman VERP " + c["sender"])
            check(dict(fs).get("list-id", "").endswith(".%s>" % generate.LIST_HOST),
                  where + ": List-Id")
        elif kind == "spam":
            dom = c["sender"].rsplit("@", 1)[1]
            check(not below, where + ": A-R below Received")
            check(all(trusted(v) and dom in v for v in above), where + ": A-R %s" % above)
        elif kind == "forged":
            brand = c["sender"].rsplit("@", 1)[1]
            forged = [v for v in below if trusted(v) and "dkim=pass header.d=%s" % brand in v]
            check(len(forged) == 1, where + ": forged A-R below first Received: %s" % below)
            check(not any(trusted(v) and "=pass" in v for v in above),
                  where + ": a trusted pass above Received: %s" % above)
            check(brand in dict(fs).get("from", ""), where + ": From: not the brand")
        elif kind in ("learn_ham", "ip_allow"):
            check(not above and not below, where + ": has A-R")
        elif kind == "learn_spam":
            check(len(above) == 1 and trusted(above[0]) and "dkim=pass" in above[0],
                  where + ": A-R %s" % above)
    if kind in ("newsletter", "list", "learn_spam", "ip_allow"):
        check(len(nets) == 1, "%s: %d networks, wants one" % (sid, len(nets)))
    if kind in ("spam", "forged", "learn_ham"):
        check(len(nets) == len(copies), "%s: networks repeat" % sid)
    if kind == "spam":
        check(len(set(domains)) == len(copies), "%s: sender domains repeat" % sid)
    if kind == "forged":
        check(len(set(domains)) == 1, "%s: more than one brand" % sid)
    if kind == "ip_allow":
        check(len(sc["allow"]) == 1 and sc["allow"][0].startswith("ip "), "%s: allow %s" % (sid, sc["allow"]))
        allowed = ipaddress.ip_network(sc["allow"][0].split()[1])
        check(all(ipaddress.ip_address(c["client_ip"]) in allowed for c in copies),
              "%s: a client outside %s" % (sid, allowed))
        check(len({c["sender"] for c in copies}) == len(copies), "%s: senders repeat" % sid)
    if kind in ("learn_spam", "learn_ham"):
        want = "spam" if kind == "learn_spam" else "ham"
        check(sc["learn"] == [{"after_copy": 1, "copy": 1, "as": want}], "%s: learn %s" % (sid, sc["learn"]))
    else:
        check(not sc["learn"], "%s: unexpected learn steps" % sid)


def main():
    corpus = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "..", "shared", "data", "mail")
    if not os.path.isdir(corpus):
        print("waves_test: SKIPPED: no dev corpus at %s" % corpus)
        return 77

    # The halves: by name, identical messages together, both halves used.
    halves = {}
    for d in sorted(os.listdir(corpus)):
        if not os.path.isdir(os.path.join(corpus, d)):
            continue
        for n in os.listdir(os.path.join(corpus, d)):
            key = n.split(".", 1)[-1]
            h = generate.half_of(n)
            check(halves.setdefault(key, h) == h, "half of %s/%s differs from its twin" % (d, n))
    share = sum(h == "tune" for h in halves.values()) / max(1, len(halves))
    check(0.4 < share < 0.6, "tune half is %.2f of the corpus" % share)

    with tempfile.TemporaryDirectory(prefix="mw-waves-test-") as tmp:
        sources = {}
        for half in ("tune", "report"):
            out = os.path.join(tmp, half)
            m = generate.generate(corpus, out, 1, half, limit=2)
            kinds = {s["kind"] for s in m["scenarios"]}
            check(kinds == set(generate.KINDS), "%s: kinds %s" % (half, sorted(kinds)))
            sources[half] = set()
            for s in m["scenarios"]:
                src = s["source"]
                sources[half].add(src)
                check(generate.half_of(src.split("/")[-1]) == half,
                      "%s uses %s of the other half" % (s["id"], src))
                with open(os.path.join(out, s["id"], "scenario.json")) as fh:
                    check_scenario(os.path.join(out, s["id"]), json.load(fh))
        check(not (sources["tune"] & sources["report"]), "halves share sources")
        # Same seed, same bytes.
        again = os.path.join(tmp, "again")
        generate.generate(corpus, again, 1, "tune", limit=2, kinds=["newsletter"])
        a = os.path.join(tmp, "tune", "newsletter-001", "05.eml")
        b = os.path.join(again, "newsletter-001", "05.eml")
        check(open(a, "rb").read() == open(b, "rb").read(), "generation is not reproducible")

    rules = sa_rules.load()
    check(rules.order, "no rules read from mailwave.cf")
    score, _ = rules.score_value(None)
    check(score == 0, "a message without the header scores %s" % score)
    if sa_rules.spamassassin_available():
        with open(sa_rules.DEFAULT_CF) as fh:
            text = fh.read()
        import io
        sink = io.StringIO()
        differ = sa_rules.compare(text, [sa_rules.SAMPLES[0], sa_rules.SAMPLES[1], sa_rules.SAMPLES[5]],
                                  "mailwave.cf", out=sink)
        check(differ == 0, "sa_rules and spamassassin differ:\n" + sink.getvalue())
    else:
        print("waves_test: spamassassin not installed; the evaluator is not compared with it")

    if FAILS:
        print("waves_test: %d failures" % len(FAILS))
        for f in FAILS[:40]:
            print("  " + f)
        return 1
    print("waves_test: ok (both halves, --limit 2, %d corpus keys)" % len(halves))
    return 0


if __name__ == "__main__":
    sys.exit(main())
