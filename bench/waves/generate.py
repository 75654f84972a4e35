#!/usr/bin/env python3
"""generate.py: scenario streams for the wanted-vs-spam wave evaluation (issue 22).

    generate.py --corpus DIR --out DIR --seed N --half tune|report [--limit N]

Builds, from the dev corpus (../shared/data/mail: sa_easy_ham*, sa_hard_ham*,
sa_spam*), streams of copies as a site's MX would see them: the .eml bytes (the
headers a milter is given, the site's own Received on top) and per copy the
envelope (sender, recipients, client address, arrival offset). Nothing here
reads mailwave's code: the streams follow what ESPs, list servers and spammers
do, and the labels say what the site wants. Nothing is sent anywhere; addresses
and networks are strings in files (the corpus must never reach a live mail
system).

Halves. Every corpus file goes to one half by a stable hash of its name (the
md5 part of "NNNNN.<md5>", so byte-identical messages in two folders stay
together): SHA-256 of it, first byte even: tune, odd: report. A run of one half
never reads a message of the other.

Scenarios (one fresh store each; copy 1 is the first the site sees):

  newsletter   sa_hard_ham* (commercial mail). 12 users of site.example, one
               copy each, as an ESP sends them: To: and a "Dear <name>,"
               greeting per user, an unsubscribe link with a per-recipient
               token, a per-recipient VERP envelope sender (bounce-<token>@
               bounce.<esp> or news+<user>=site.example@<esp>, one form per
               newsletter), one /24 (varied hosts), DKIM-signed by the ESP or
               the brand, and the site's auth milter result on top:
               Authentication-Results: mx.site.example; dkim=pass
               header.d=<d>; spf=pass smtp.mailfrom=<bounce address>.
  list         sa_easy_ham* with List-Id or Mailing-List. 12 subscribers,
               Mailman VERP <list>-bounces+user=site.example@lists.example.org,
               List-Id <list.lists.example.org>, one network, trusted A-R with
               dkim and/or spf pass for lists.example.org (sometimes also the
               author's broken signature, dkim=fail); a third of the lists add
               a personalised footer.
  spam         sa_spam*. 20 copies, each from a throwaway domain of its own and
               a /24 of its own (public-looking), lightly mutated (greeting,
               hash-buster words, subject tag); 40 % DKIM-signed by their
               throwaway domain (trusted dkim+spf pass), 20 % spf pass only,
               the rest no A-R.
  forged       sa_spam*. 20 copies with envelope and From: of one brand (the
               From: domain of a hard-ham newsletter of the same half), a /24
               each, no passing site A-R (a third get the site's honest
               "dkim=none; spf=softfail|fail|none"), a forged
               "Authentication-Results: mx.site.example; dkim=pass
               header.d=<brand>" below the first Received (right under the
               site's, or among the message's own headers), a forged
               DKIM-Signature, and in a third a passing A-R of a non-trusted
               authserv-id above everything.
  learn_spam   sa_spam*. 10 copies from one authenticated throwaway sender and
               one /24 (it would look like a newsletter); the runner learns copy
               1 as spam after checking it.
  learn_ham    sa_hard_ham*. 12 copies made to look spread: a /24 each, no A-R,
               senders on several domains; the runner learns copy 1 as ham.
  ip_allow     sa_easy_ham*. 12 copies from one /24, a different
               unauthenticated sender each; the allow file says "ip <that /24>".

Output: OUT/manifest.json and OUT/<scenario id>/{scenario.json,NN.eml}.
scenario.json: id, kind, label ("wanted"|"spam"), source (corpus file),
target {"from_copy", "max_score"|"min_score"}, allow (lines for the allow
file), learn [{"after_copy", "copy", "as"}], copies [{file, sender, rcpts,
client_ip, offset_s, queue_id}], and notes (what was done to each copy).

Python's standard library only. The same --seed and --half give the same
bytes; --limit N keeps the first N scenarios of each kind (the same ones a
full run makes).
"""

import argparse
import base64
import email
import email.generator
import email.policy
import hashlib
import io
import json
import os
import quopri
import random
import re
import shutil
import sys
import time

SITE = "site.example"
AUTHSERV = "mx.site.example"
LIST_HOST = "lists.example.org"
BASE_TIME = 1795334400  # 2026-11-22T08:00:00Z; the runner adds offset_s

# Scenarios per kind for a full run, and copies per scenario.
COUNTS = {"newsletter": 40, "list": 30, "spam": 30, "forged": 15,
          "learn_spam": 10, "learn_ham": 10, "ip_allow": 10}
COPIES = {"newsletter": 12, "list": 12, "spam": 20, "forged": 20,
          "learn_spam": 10, "learn_ham": 12, "ip_allow": 12}
KINDS = list(COUNTS)

FIRST = ["anna", "ben", "clara", "david", "emma", "felix", "greta", "hugo",
         "ines", "jonas", "karin", "lars", "maria", "nils", "olga", "paul",
         "rita", "sven", "tina", "uwe", "vera", "walter", "yara", "zoe",
         "alice", "bruno", "carla", "dirk", "elena", "frank", "gina", "henrik",
         "ida", "jan", "kim", "lena", "max", "nora", "oscar", "petra"]
LAST = ["berg", "meyer", "novak", "smith", "garcia", "rossi", "dubois",
        "jansen", "kowalski", "larsen", "moreau", "nguyen", "olsen", "silva"]
ESPS = ["sendwave-mail.net", "postcaster.io", "campaignrelay.com",
        "bulkreach-mta.net", "mailpilot-esp.com", "newsloop.net"]
TLDS = [".com", ".net", ".info", ".biz", ".top", ".xyz", ".click", ".online"]
DELIVERY_HEADERS = {b"return-path", b"delivered-to", b"x-original-to"}


# ------------------------------------------------------------------ corpus

def half_of(name):
    """'tune' or 'report' for a corpus file name (stable across runs)."""
    key = name.split(".", 1)[1] if re.match(r"^\d+\.[0-9a-f]{32}$", name) else name
    return "tune" if hashlib.sha256(key.encode()).digest()[0] % 2 == 0 else "report"


def corpus_files(corpus, prefix, half):
    """Sorted (folder/name, path) of the half's files in folders sa_<prefix>*."""
    out = []
    for d in sorted(os.listdir(corpus)):
        if not d.startswith("sa_" + prefix):
            continue
        for n in sorted(os.listdir(os.path.join(corpus, d))):
            if half_of(n) == half:
                out.append((d + "/" + n, os.path.join(corpus, d, n)))
    return out


# ------------------------------------------------------------------ headers

class Head:
    """A header block as fields of raw lines, edited without refolding."""

    def __init__(self, block):
        self.fields = []  # [name lower-case bytes or None, raw bytes incl. \n]
        for line in block.split(b"\n"):
            if not line:
                continue
            if line[:1] in (b" ", b"\t") and self.fields:
                self.fields[-1][1] += line + b"\n"
                continue
            name = line.split(b":", 1)[0].strip().lower() if b":" in line else None
            self.fields.append([name, line + b"\n"])

    def get(self, name):
        for n, raw in self.fields:
            if n == name.lower().encode():
                v = raw.split(b":", 1)[1]
                return re.sub(rb"\s+", b" ", v).strip().decode("latin-1")
        return None

    def remove(self, name):
        self.fields = [f for f in self.fields if f[0] != name.lower().encode()]

    def set(self, name, value):
        """Replaces the first `name` field in place (or adds it at the end)."""
        line = (name + ": " + value + "\n").encode()
        for i, f in enumerate(self.fields):
            if f[0] == name.lower().encode():
                self.fields[i] = [name.lower().encode(), line]
                self.fields = [g for j, g in enumerate(self.fields)
                               if j <= i or g[0] != name.lower().encode()]
                return
        self.fields.append([name.lower().encode(), line])

    def prepend(self, name, value):
        self.fields.insert(0, [name.lower().encode(),
                               (name + ": " + value + "\n").encode()])

    def insert_at(self, index, name, value):
        self.fields.insert(index, [name.lower().encode(),
                                   (name + ": " + value + "\n").encode()])

    def index_after_received(self):
        """Index just below the last Received field (the message's own
        headers start there)."""
        last = -1
        for i, f in enumerate(self.fields):
            if f[0] == b"received":
                last = i
        return last + 1

    def bytes(self):
        return b"".join(f[1] for f in self.fields)


def split_message(raw):
    raw = raw.replace(b"\r\n", b"\n")
    if raw.startswith(b"From "):  # the corpus files are mbox-style
        raw = raw.split(b"\n", 1)[1]
    i = raw.find(b"\n\n")
    if i < 0:
        return raw + b"\n", b""
    return raw[:i + 1], raw[i + 2:]


# ------------------------------------------------------------------ bodies

def _text_leaves(msg):
    for part in msg.walk():
        if part.is_multipart():
            continue
        if part.get_content_maintype() != "text":
            continue
        if part.get_content_subtype() not in ("plain", "html"):
            continue
        if (part.get("Content-Disposition") or "").lower().startswith("attachment"):
            continue
        yield part


def visible_text(raw):
    """The decoded text of a message's text parts, tags stripped (for picking
    bases with enough text to be a wave)."""
    _, body = split_message(raw)
    try:
        msg = email.message_from_bytes(raw, policy=email.policy.compat32)
        chunks = []
        for p in _text_leaves(msg):
            b = p.get_payload(decode=True) or b""
            t = b.decode("latin-1")
            if p.get_content_subtype() == "html":
                t = re.sub(r"(?is)<(script|style).*?</\1>", " ", t)
                t = re.sub(r"(?s)<[^>]*>", " ", t)
                t = re.sub(r"&[a-z#0-9]+;", " ", t)
            chunks.append(t)
        return re.sub(r"\s+", " ", " ".join(chunks)).strip()
    except Exception:  # noqa: BLE001 - spam is malformed in every way
        return ""


def _encode_snippet(snippet, cte):
    if cte == "quoted-printable":
        return quopri.encodestring(snippet.encode("ascii")).decode("ascii")
    return snippet


def edit_body(raw, top=None, bottom=None):
    """Returns the message's body bytes with `top` text inserted at the start
    and `bottom` at the end of every text/plain and text/html part (each a
    dict {"plain": str, "html": str}; ASCII), in the part's own transfer
    encoding. None when no part could be edited."""
    msg = email.message_from_bytes(raw, policy=email.policy.compat32)
    edited = 0
    for part in _text_leaves(msg):
        sub = part.get_content_subtype()
        cte = (part.get("Content-Transfer-Encoding") or "7bit").strip().lower()
        t = top[sub] if top else ""
        b = bottom[sub] if bottom else ""
        if cte == "base64":
            data = part.get_payload(decode=True)
            if data is None:
                continue
            charset = (part.get_content_charset() or "us-ascii").lower()
            if "16" in charset or "32" in charset:
                continue
            data = _insert(data.decode("latin-1"), sub, t, b).encode("latin-1")
            enc = base64.encodebytes(data).decode("ascii")
            part._payload = enc  # noqa: SLF001 - keep headers and charset as they are
        else:
            payload = part.get_payload(decode=False)
            if not isinstance(payload, str):
                continue
            part._payload = _insert(payload, sub, _encode_snippet(t, cte),
                                    _encode_snippet(b, cte))
        edited += 1
    if not edited:
        return None
    out = io.BytesIO()
    email.generator.BytesGenerator(out, mangle_from_=False,
                                   maxheaderlen=0).flatten(msg)
    _, body = split_message(out.getvalue())
    return body


def _insert(text, sub, top, bottom):
    if sub == "html":
        if top:
            m = re.search(r"(?i)<body[^>]*>", text)
            text = (text[:m.end()] + top + text[m.end():]) if m else top + text
        if bottom:
            m = None
            for m in re.finditer(r"(?i)</body>", text):
                pass
            text = (text[:m.start()] + bottom + text[m.start():]) if m else text + bottom
        return text
    if bottom and not text.endswith("\n"):
        text += "\n"
    return (top or "") + text + (bottom or "")


# ------------------------------------------------------------------ random strings

def hexs(rng, n):
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


def alnum(rng, n):
    return "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(n))


def word(rng, syllables):
    c, v = "bcdfghjklmnprstvwz", "aeiou"
    return "".join(rng.choice(c) + rng.choice(v) for _ in range(syllables))


def throwaway_domain(rng):
    d = word(rng, rng.randint(2, 4))
    if rng.random() < 0.4:
        d += "-" + word(rng, 2)
    if rng.random() < 0.3:
        d += str(rng.randint(1, 99))
    return d + rng.choice(TLDS)


def public_net(rng, used):
    """A public-looking /24 as 'a.b.c' (not private, loopback, link-local,
    CGNAT, TEST-NET or multicast), not in `used`."""
    while True:
        a = rng.randint(23, 223)
        if a in (100, 127, 169, 172, 192, 198, 203):
            continue
        net = "%d.%d.%d" % (a, rng.randint(0, 255), rng.randint(0, 255))
        if net not in used:
            used.add(net)
            return net


def queue_id(rng):
    return "".join(rng.choice("0123456789BCDFGHJKLMNPQRSTVWXYZbcdfghjkmnpqrstvwxyz")
                   for _ in range(12))


def rfc2822(t):
    return time.strftime("%a, %d %b %Y %H:%M:%S +0000", time.gmtime(t))


def user(i):
    first = FIRST[i % len(FIRST)]
    last = LAST[(i * 7) % len(LAST)]
    return {"local": first, "addr": first + "@" + SITE,
            "display": first.capitalize() + " " + last.capitalize(),
            "first": first.capitalize()}


def pick_users(rng, n):
    return [user(i) for i in rng.sample(range(len(FIRST)), n)]


def offsets(rng, n, lo, hi):
    t, out = 0, []
    for i in range(n):
        out.append(t)
        t += rng.randint(lo, hi)
    return out


def received(helo, ip, qid, rcpt, t, tls=True):
    return ("from %s (%s [%s]) by %s (Postfix) with %s id %s for <%s>; %s"
            % (helo, helo, ip, AUTHSERV, "ESMTPS" if tls else "ESMTP", qid,
               rcpt, rfc2822(t)))


def dkim_signature(rng, d):
    return ("v=1; a=rsa-sha256; c=relaxed/relaxed; d=%s; s=mw%d; "
            "h=from:to:subject:date:message-id; bh=%s=; b=%s"
            % (d, rng.randint(1, 9), alnum(rng, 43), alnum(rng, 86)))


def registrable(domain):
    """The last two labels (three under a two-letter ccTLD's second level such
    as co.uk): enough for picking brands from From: addresses."""
    labels = domain.lower().strip(".").split(".")
    if len(labels) >= 3 and len(labels[-1]) == 2 and labels[-2] in ("co", "com", "ac", "or", "ne", "org", "net"):
        return ".".join(labels[-3:])
    return ".".join(labels[-2:])


def addr_domain(value):
    m = re.search(r"[\w.+=-]+@([\w-]+(?:\.[\w-]+)+)", value or "")
    return m.group(1).lower() if m else None


def display_name(value, fallback):
    m = re.match(r'\s*"?([^"<]+?)"?\s*<', value or "")
    return m.group(1).strip() if m else fallback


# ------------------------------------------------------------------ scenarios

class Writer:
    def __init__(self, out):
        self.out = out
        self.scenarios = []

    def write(self, sc, messages):
        d = os.path.join(self.out, sc["id"])
        os.makedirs(d)
        for c, data in zip(sc["copies"], messages):
            with open(os.path.join(d, c["file"]), "wb") as fh:
                fh.write(data)
        with open(os.path.join(d, "scenario.json"), "w") as fh:
            json.dump(sc, fh, indent=1)
            fh.write("\n")
        self.scenarios.append({"id": sc["id"], "kind": sc["kind"],
                               "copies": len(sc["copies"]), "source": sc["source"]})


def assemble(head, body):
    return head.bytes() + b"\n" + body


def base_head(raw):
    block, body = split_message(raw)
    h = Head(block)
    for n in DELIVERY_HEADERS:
        h.remove(n.decode())
    return h, body


def new_scenario(kind, index, source, label, target):
    return {"id": "%s-%03d" % (kind, index), "kind": kind, "label": label,
            "source": source, "target": target, "allow": [], "learn": [],
            "copies": [], "notes": []}


def make_newsletter(rng, index, source, raw, n):
    sc = new_scenario("newsletter", index, source, "wanted",
                      {"from_copy": 2, "max_score": 0.5, "dup": True})
    h0, _ = base_head(raw)
    brand = registrable(addr_domain(h0.get("From")) or "brand-news.example")
    esp = rng.choice(ESPs_sorted())
    bounce_host = "bounce." + esp
    verp_form = rng.choice(["bounce", "plus"])
    signer = rng.choice([brand, esp])
    net = public_net(rng, set())
    hosts = rng.sample(range(10, 250), 4)
    users = pick_users(rng, n)
    offs = offsets(rng, n, 1, 20)
    sc["notes"].append("brand %s, esp %s, dkim d=%s, verp %s, net %s.0/24"
                       % (brand, esp, signer, verp_form, net))
    msgs = []
    for i, u in enumerate(users):
        token = hexs(rng, 16)
        if verp_form == "bounce":
            sender = "bounce-%s@%s" % (token, bounce_host)
        else:
            sender = "news+%s=%s@%s" % (u["local"], SITE, esp)
        ip = "%s.%d" % (net, rng.choice(hosts))
        helo = "mta%d.%s" % (int(ip.rsplit(".", 1)[1]), esp)
        t = BASE_TIME + offs[i]
        qid = queue_id(rng)
        unsub = "https://click.%s/u/%s" % (esp, hexs(rng, 24))
        body = edit_body(raw,
                         top={"plain": "Dear %s,\n\n" % u["first"],
                              "html": "<p>Dear %s,</p>\n" % u["first"]},
                         bottom={"plain": "\nTo unsubscribe: %s\n" % unsub,
                                 "html": '<p><a href="%s">Unsubscribe</a></p>\n' % unsub})
        if body is None:
            return None
        h, _ = base_head(raw)
        h.set("To", '"%s" <%s>' % (u["display"], u["addr"]))
        h.set("Message-ID", "<%s.%d@%s>" % (token, t, esp))
        h.set("List-Unsubscribe", "<%s>" % unsub)
        h.prepend("DKIM-Signature", dkim_signature(rng, signer))
        h.prepend("Received", received(helo, ip, qid, u["addr"], t))
        h.prepend("Authentication-Results",
                  "%s; dkim=pass header.d=%s header.s=mw1; spf=pass smtp.mailfrom=%s"
                  % (AUTHSERV, signer, sender))
        msgs.append(assemble(h, body))
        sc["copies"].append({"file": "%02d.eml" % (i + 1), "sender": sender,
                             "rcpts": [u["addr"]], "client_ip": ip,
                             "offset_s": offs[i], "queue_id": qid})
    return sc, msgs


def ESPs_sorted():
    return sorted(ESPS)


def list_name(h):
    lid = h.get("List-Id") or ""
    m = re.search(r"<([^>]+)>", lid)
    if m:
        name = m.group(1).split(".")[0]
    else:
        m = re.search(r"list ([\w.-]+)@", h.get("Mailing-List") or "")
        name = m.group(1) if m else "discuss"
    name = re.sub(r"[^a-z0-9-]", "-", name.lower()).strip("-") or "discuss"
    return name[:40]


def make_list(rng, index, source, raw, n):
    sc = new_scenario("list", index, source, "wanted",
                      {"from_copy": 2, "max_score": 0.5, "dup": True})
    h0, _ = base_head(raw)
    name = list_name(h0)
    auth = rng.choice(["dkim+spf", "spf", "dkim", "dkim+authorfail"])
    footer = rng.random() < 1 / 3
    net = public_net(rng, set())
    hosts = rng.sample(range(10, 250), 2)
    author = addr_domain(h0.get("From")) or "example.net"
    users = pick_users(rng, n)
    offs = offsets(rng, n, 0, 6)
    sc["notes"].append("list %s, auth %s, footer %s, net %s.0/24"
                       % (name, auth, footer, net))
    msgs = []
    for i, u in enumerate(users):
        sender = "%s-bounces+%s=%s@%s" % (name, u["local"], SITE, LIST_HOST)
        ip = "%s.%d" % (net, rng.choice(hosts))
        t = BASE_TIME + offs[i]
        qid = queue_id(rng)
        body = None
        if footer:
            url = "https://%s/options/%s/%s%%40%s" % (LIST_HOST, name, u["local"], SITE)
            body = edit_body(raw, bottom={
                "plain": "\n_______________________________________________\n"
                         "%s mailing list\nYour options: %s\n" % (name, url),
                "html": '<p>%s mailing list: <a href="%s">your options</a></p>\n'
                        % (name, url)})
        if body is None:
            _, body = split_message(raw)
        h, _ = base_head(raw)
        h.set("List-Id", "<%s.%s>" % (name, LIST_HOST))
        h.set("List-Post", "<mailto:%s@%s>" % (name, LIST_HOST))
        h.set("Sender", '"%s" <%s-bounces@%s>' % (name, name, LIST_HOST))
        h.set("Message-ID", h.get("Message-ID") or "<%s@%s>" % (hexs(rng, 16), author))
        results = []
        if "dkim" in auth:
            h.prepend("DKIM-Signature", dkim_signature(rng, LIST_HOST))
            results.append("dkim=pass header.d=%s header.s=mw1" % LIST_HOST)
        if auth == "dkim+authorfail":
            results.append("dkim=fail (body hash did not verify) header.d=%s" % author)
        if "spf" in auth:
            results.append("spf=pass smtp.mailfrom=%s" % sender)
        h.prepend("Received", received("mail.%s" % LIST_HOST, ip, qid, u["addr"], t))
        h.prepend("Authentication-Results", AUTHSERV + "; " + "; ".join(results))
        msgs.append(assemble(h, body))
        sc["copies"].append({"file": "%02d.eml" % (i + 1), "sender": sender,
                             "rcpts": [u["addr"]], "client_ip": ip,
                             "offset_s": offs[i], "queue_id": qid})
    return sc, msgs


def spam_mutation(rng, raw, u):
    """Light per-copy change: a greeting, hash-buster words, or both."""
    what = rng.choice(["greeting", "buster", "both"])
    top = bottom = None
    if what in ("greeting", "both"):
        g = rng.choice(["Dear %s,", "Hi %s,", "Hello %s!", "Dear friend,",
                        "Attn: %s"])
        g = g % u["first"] if "%s" in g else g
        top = {"plain": g + "\n\n", "html": "<p>%s</p>\n" % g}
    if what in ("buster", "both"):
        words = " ".join(word(rng, rng.randint(2, 4)) for _ in range(rng.randint(2, 5)))
        bottom = {"plain": "\n%s %s\n" % (words, alnum(rng, 10)),
                  "html": '<font color="#ffffff">%s %s</font>\n' % (words, alnum(rng, 10))}
    return edit_body(raw, top=top, bottom=bottom), what


def make_spam(rng, index, source, raw, n):
    sc = new_scenario("spam", index, source, "spam",
                      {"from_copy": 6, "min_score": 3.0})
    used = set()
    offs = offsets(rng, n, 20, 180)
    h0, _ = base_head(raw)
    subject = h0.get("Subject") or ""
    msgs = []
    for i in range(n):
        dom = throwaway_domain(rng)
        local = rng.choice([word(rng, 3), "info", "sales", "news", word(rng, 2) + str(rng.randint(1, 999))])
        sender = "%s@%s" % (local, dom)
        net = public_net(rng, used)
        ip = "%s.%d" % (net, rng.randint(2, 254))
        users = pick_users(rng, rng.randint(1, 3))
        t = BASE_TIME + offs[i]
        qid = queue_id(rng)
        body, what = spam_mutation(rng, raw, users[0])
        if body is None:
            return None
        h, _ = base_head(raw)
        h.set("From", '"%s" <%s>' % (display_name(h0.get("From"), local), sender))
        h.set("To", "<%s>" % users[0]["addr"])
        h.set("Message-ID", "<%s@%s>" % (alnum(rng, 20), dom))
        if rng.random() < 0.5:
            h.set("Subject", "%s %s" % (subject, alnum(rng, rng.randint(4, 8))))
        r = rng.random()
        auth = "dkim+spf" if r < 0.4 else ("spf" if r < 0.6 else "none")
        if auth == "dkim+spf":
            h.prepend("DKIM-Signature", dkim_signature(rng, dom))
        h.prepend("Received", received("mail." + dom, ip, qid, users[0]["addr"], t,
                                       tls=rng.random() < 0.5))
        if auth == "dkim+spf":
            h.prepend("Authentication-Results",
                      "%s; dkim=pass header.d=%s header.s=mw1; spf=pass smtp.mailfrom=%s"
                      % (AUTHSERV, dom, sender))
        elif auth == "spf":
            h.prepend("Authentication-Results",
                      "%s; dkim=none; spf=pass smtp.mailfrom=%s" % (AUTHSERV, sender))
        msgs.append(assemble(h, body))
        sc["copies"].append({"file": "%02d.eml" % (i + 1), "sender": sender,
                             "rcpts": [u["addr"] for u in users], "client_ip": ip,
                             "offset_s": offs[i], "queue_id": qid})
        sc["notes"].append("copy %d: %s, auth %s" % (i + 1, what, auth))
    return sc, msgs


def make_forged(rng, index, source, raw, n, brands):
    sc = new_scenario("forged", index, source, "spam",
                      {"from_copy": 6, "min_score": 3.0})
    brand = rng.choice(brands)
    used = set()
    offs = offsets(rng, n, 20, 180)
    h0, _ = base_head(raw)
    sc["notes"].append("brand %s" % brand)
    msgs = []
    for i in range(n):
        local = rng.choice(["news", "info", "service", "bounce-" + hexs(rng, 10)])
        sender = "%s@%s" % (local, brand)
        net = public_net(rng, used)
        ip = "%s.%d" % (net, rng.randint(2, 254))
        users = pick_users(rng, rng.randint(1, 3))
        t = BASE_TIME + offs[i]
        qid = queue_id(rng)
        body, what = spam_mutation(rng, raw, users[0])
        if body is None:
            return None
        h, _ = base_head(raw)
        h.set("From", '"%s" <%s>' % (brand.split(".")[0].capitalize(), "news@" + brand))
        h.set("To", "<%s>" % users[0]["addr"])
        h.set("Message-ID", "<%s@%s>" % (alnum(rng, 20), brand))
        forged = ("%s; dkim=pass header.d=%s header.s=mw1; spf=pass smtp.mailfrom=%s"
                  % (AUTHSERV, brand, sender))
        where = rng.choice(["under-site-received", "among-own-headers"])
        if where == "among-own-headers":
            h.insert_at(h.index_after_received(), "Authentication-Results", forged)
            h.insert_at(h.index_after_received(), "DKIM-Signature", dkim_signature(rng, brand))
        h.prepend("Received", received("mail%d.%s" % (rng.randint(1, 40), brand), ip,
                                       qid, users[0]["addr"], t, tls=False))
        if where == "under-site-received":
            h.insert_at(1, "DKIM-Signature", dkim_signature(rng, brand))
            h.insert_at(1, "Authentication-Results", forged)
        extra = rng.random()
        if extra < 1 / 3:
            honest = rng.choice(["spf=softfail", "spf=fail", "spf=none"])
            h.prepend("Authentication-Results", "%s; dkim=none; %s smtp.mailfrom=%s"
                      % (AUTHSERV, honest, sender))
            note = "site says dkim=none " + honest
        elif extra < 2 / 3:
            h.prepend("Authentication-Results", "mx.%s; dkim=pass header.d=%s; spf=pass smtp.mailfrom=%s"
                      % (brand, brand, sender))
            note = "untrusted pass above"
        else:
            note = "no A-R above"
        msgs.append(assemble(h, body))
        sc["copies"].append({"file": "%02d.eml" % (i + 1), "sender": sender,
                             "rcpts": [u["addr"] for u in users], "client_ip": ip,
                             "offset_s": offs[i], "queue_id": qid})
        sc["notes"].append("copy %d: %s, forged %s, %s" % (i + 1, what, where, note))
    return sc, msgs


def make_learn_spam(rng, index, source, raw, n):
    sc = new_scenario("learn_spam", index, source, "spam",
                      {"from_copy": 2, "min_score": 3.0})
    sc["learn"].append({"after_copy": 1, "copy": 1, "as": "spam"})
    dom = throwaway_domain(rng)
    net = public_net(rng, set())
    offs = offsets(rng, n, 10, 120)
    h0, _ = base_head(raw)
    sc["notes"].append("one authenticated sender domain %s, net %s.0/24" % (dom, net))
    msgs = []
    for i in range(n):
        users = pick_users(rng, rng.randint(1, 2))
        sender = "bounce-%s@%s" % (hexs(rng, 10), dom)
        ip = "%s.%d" % (net, rng.randint(2, 254))
        t = BASE_TIME + offs[i]
        qid = queue_id(rng)
        body, what = spam_mutation(rng, raw, users[0])
        if body is None:
            return None
        h, _ = base_head(raw)
        h.set("From", '"%s" <offers@%s>' % (display_name(h0.get("From"), "Offers"), dom))
        h.set("To", "<%s>" % users[0]["addr"])
        h.set("Message-ID", "<%s@%s>" % (alnum(rng, 20), dom))
        h.prepend("DKIM-Signature", dkim_signature(rng, dom))
        h.prepend("Received", received("out.%s" % dom, ip, qid, users[0]["addr"], t))
        h.prepend("Authentication-Results",
                  "%s; dkim=pass header.d=%s header.s=mw1; spf=pass smtp.mailfrom=%s"
                  % (AUTHSERV, dom, sender))
        msgs.append(assemble(h, body))
        sc["copies"].append({"file": "%02d.eml" % (i + 1), "sender": sender,
                             "rcpts": [u["addr"] for u in users], "client_ip": ip,
                             "offset_s": offs[i], "queue_id": qid})
    return sc, msgs


def make_learn_ham(rng, index, source, raw, n):
    sc = new_scenario("learn_ham", index, source, "wanted",
                      {"from_copy": 2, "max_score": 0.5, "dup": True})
    sc["learn"].append({"after_copy": 1, "copy": 1, "as": "ham"})
    doms = [throwaway_domain(rng) for _ in range(6)]
    used = set()
    users = pick_users(rng, n)
    offs = offsets(rng, n, 10, 120)
    sc["notes"].append("spread: a /24 each, no A-R, senders on %s" % ", ".join(doms))
    msgs = []
    for i, u in enumerate(users):
        dom = rng.choice(doms)
        sender = "%s@%s" % (rng.choice(["news", "info", "list", word(rng, 3)]), dom)
        ip = "%s.%d" % (public_net(rng, used), rng.randint(2, 254))
        t = BASE_TIME + offs[i]
        qid = queue_id(rng)
        _, body = split_message(raw)
        h, _ = base_head(raw)
        h.set("To", '"%s" <%s>' % (u["display"], u["addr"]))
        h.prepend("Received", received("relay.%s" % dom, ip, qid, u["addr"], t, tls=False))
        msgs.append(assemble(h, body))
        sc["copies"].append({"file": "%02d.eml" % (i + 1), "sender": sender,
                             "rcpts": [u["addr"]], "client_ip": ip,
                             "offset_s": offs[i], "queue_id": qid})
    return sc, msgs


def make_ip_allow(rng, index, source, raw, n):
    sc = new_scenario("ip_allow", index, source, "wanted",
                      {"from_copy": 2, "max_score": 0.5, "dup": True})
    net = public_net(rng, set())
    sc["allow"].append("ip %s.0/24" % net)
    offs = offsets(rng, n, 30, 300)
    sc["notes"].append("one network %s.0/24, a sender (domain) each, no A-R" % net)
    msgs = []
    for i in range(n):
        users = pick_users(rng, rng.randint(1, 2))
        dom = throwaway_domain(rng)
        sender = "%s@%s" % (rng.choice(["noreply", "alerts", word(rng, 3)]), dom)
        ip = "%s.%d" % (net, rng.randint(2, 254))
        t = BASE_TIME + offs[i]
        qid = queue_id(rng)
        _, body = split_message(raw)
        h, _ = base_head(raw)
        h.prepend("Received", received("gw.%s" % dom, ip, qid, users[0]["addr"], t, tls=False))
        msgs.append(assemble(h, body))
        sc["copies"].append({"file": "%02d.eml" % (i + 1), "sender": sender,
                             "rcpts": [u["addr"] for u in users], "client_ip": ip,
                             "offset_s": offs[i], "queue_id": qid})
    return sc, msgs


# ------------------------------------------------------------------ main

def acceptable(raw, min_text, need_list=False):
    """Whether a corpus message can be a wave's base: enough text to be a
    near-duplicate of anything (200 visible characters), and for lists a
    List-Id or Mailing-List header."""
    if need_list:
        block, _ = split_message(raw)
        if not re.search(rb"(?im)^(list-id|mailing-list):", block):
            return False
    return len(visible_text(raw)) >= min_text


def generate(corpus, out, seed, half, limit=None, kinds=None):
    """Writes the scenarios; returns the manifest (also OUT/manifest.json).
    Each kind walks its half's files in a seeded order and takes the first
    that are acceptable and editable, so --limit N gives the first N
    scenarios of a full run, reading only the files it needs."""
    if os.path.exists(out):
        shutil.rmtree(out)
    os.makedirs(out)
    kinds = kinds or KINDS
    counts = {k: (min(COUNTS[k], limit) if limit is not None else COUNTS[k]) for k in kinds}
    files = {p: corpus_files(corpus, p, half) for p in ("hard_ham", "easy_ham", "spam")}
    brands = []
    for _, path in files["hard_ham"]:
        with open(path, "rb") as fh:
            d = addr_domain(Head(split_message(fh.read())[0]).get("From"))
        if d:
            brands.append(registrable(d))
    brands = sorted(set(brands))
    pools = {"newsletter": ("hard_ham", False), "list": ("easy_ham", True),
             "spam": ("spam", False), "forged": ("spam", False),
             "learn_spam": ("spam", False), "learn_ham": ("hard_ham", False),
             "ip_allow": ("easy_ham", False)}
    makers = {"newsletter": make_newsletter, "list": make_list, "spam": make_spam,
              "forged": lambda r, i, s, raw, n: make_forged(r, i, s, raw, n, brands),
              "learn_spam": make_learn_spam, "learn_ham": make_learn_ham,
              "ip_allow": make_ip_allow}
    w = Writer(out)
    rejected = {}
    for kind in kinds:
        prefix, need_list = pools[kind]
        order = list(files[prefix])
        random.Random("%s:%s:order" % (seed, kind)).shuffle(order)
        made = 0
        for name, path in order:
            if made >= counts[kind]:
                break
            with open(path, "rb") as fh:
                raw = fh.read()
            res = None
            if acceptable(raw, 200, need_list):
                rng = random.Random("%s:%s:%d:%s" % (seed, kind, made, name))
                try:
                    res = makers[kind](rng, made + 1, name, raw, COPIES[kind])
                except Exception:  # noqa: BLE001 - a base the email package cannot edit
                    res = None
            if res is None:
                rejected[kind] = rejected.get(kind, 0) + 1
                continue
            w.write(*res)
            made += 1
    manifest = {"generator": "bench/waves/generate.py", "seed": seed, "half": half,
                "corpus": os.path.abspath(corpus), "limit": limit,
                "base_time": BASE_TIME, "site": SITE, "authserv_id": AUTHSERV,
                "half_files": {k: len(v) for k, v in files.items()},
                "bases_rejected": rejected, "brands": len(brands),
                "scenarios": w.scenarios}
    with open(os.path.join(out, "manifest.json"), "w") as fh:
        json.dump(manifest, fh, indent=1)
        fh.write("\n")
    return manifest


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", required=True, help="the dev corpus (sa_* folders)")
    ap.add_argument("--out", required=True, help="output folder (replaced)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--half", choices=["tune", "report"], required=True)
    ap.add_argument("--limit", type=int, help="at most N scenarios of each kind")
    ap.add_argument("--kinds", help="comma-separated subset of " + ",".join(KINDS))
    args = ap.parse_args()
    if not os.path.isdir(args.corpus):
        print("generate.py: no corpus at %s" % args.corpus, file=sys.stderr)
        return 2
    kinds = args.kinds.split(",") if args.kinds else None
    m = generate(args.corpus, args.out, args.seed, args.half, args.limit, kinds)
    by = {}
    for s in m["scenarios"]:
        by.setdefault(s["kind"], [0, 0])
        by[s["kind"]][0] += 1
        by[s["kind"]][1] += s["copies"]
    print("%s half, seed %d: %s" % (args.half, args.seed, ", ".join(
        "%s %d (%d copies)" % (k, v[0], v[1]) for k, v in by.items())))
    print("half's files: %s; bases passed over (short, no list header, not editable): %s"
          % (m["half_files"], m["bases_rejected"] or "none"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
