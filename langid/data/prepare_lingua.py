#!/usr/bin/python3
"""Makes langid/data/lingua-trigrams.tar.xz: character trigram frequencies from Lingua's
models, the n-gram tier's evidence for the languages whose own word lists are thin.

Usage: langid/data/prepare_lingua.py LINGUA_TGZ OUT_TAR [--languages a,b,...] [--top N]

LINGUA_TGZ is the npm package @bluzzi/lingua 1.5.0 (Apache-2.0; lingua-rs by Peter M.
Stahl compiled to WebAssembly), unchanged:
  npm pack @bluzzi/lingua@1.5.0   # bluzzi-lingua-1.5.0.tgz
  sha256 2a9043b70a72a5afb69d16e6659a8e066b27101afc71c09db5141d2c1ddeba52 (checked)
Needs Debian's python3-brotli (hence /usr/bin/python3).

What is read, and nothing else: the WebAssembly module's data segments hold each
language's models as Brotli-compressed JSON files (lingua-rs embeds them with include_dir:
a file is a record of four 32-bit words, the address and length of its name, then of its
bytes). A model maps relative frequencies ("num/den") to the n-grams that have them; the
unigram model holds P(a), the bigram model P(b | a) and the trigram model P(c | ab), all
counted by Lingua within the words of Leipzig news text (lower-cased letters, no word
boundaries). Nothing of the WebAssembly code runs or ships; no Leipzig text is read.

Each output file wordlists/<code>.trigrams lists the language's --top (default 6000) most
probable trigrams as "trigram count", count = round(1e9 * P(a) P(b|a) P(c|ab)): the joint
probability of the letter trigram inside a word, per billion trigrams. `mailwave dict
build` reads it beside <code>.txt (see "Data and licence" in docs/langid.md for how the
build mixes it with the list's own trigrams).

--languages (default: LANGUAGES below) picks the languages, by the detector's codes.

It also writes wordlists/<first>.pair for each of PAIRS, as a .variant file (below) with
a first line "pair-with <second>" (then " <floor>" where PAIRS gives one): two languages
with lists of their own that the lists confuse, told apart by the same values.

It also writes wordlists/<variant>.variant for each pair of VARIANTS: the letter n-grams
(one to five letters, inside words) that best tell a written variant from the language
the word lists name for it (Nynorsk from Bokmål), one "n-gram value" line each after a
first line "variant-of <base>", value = 100 * ln(P_variant(g) / P_base(g)) clamped to
+-VARIANT_CLAMP, P the conditional probability of the n-gram's last letter given the
ones before it as Lingua stores it, backing off to the longest prefix either model has
(as Lingua does for an n-gram it has not seen). The detector sums the values of a text's
n-grams and names the variant when the sum is high enough (docs/langid.md). Kept: the
--variant-top (default VARIANT_TOP) n-grams of highest mean joint probability times
absolute value, i.e. those that move the sum most in running text.
The output is deterministic (sorted names and lines, fixed mtime, no owner).
"""
import hashlib
import io
import json
import math
import re
import struct
import sys
import tarfile
import unicodedata

import brotli

from prepare import add_file  # beside this script

SHA256 = "2a9043b70a72a5afb69d16e6659a8e066b27101afc71c09db5141d2c1ddeba52"

# Lingua's language names -> the detector's codes (ISO 639-1, as the dev set names them).
CODES = {
    "AFRIKAANS": "af", "ALBANIAN": "sq", "ARABIC": "ar", "ARMENIAN": "hy",
    "AZERBAIJANI": "az", "BASQUE": "eu", "BELARUSIAN": "be", "BENGALI": "bn",
    "BOKMAL": "nb", "BOSNIAN": "bs", "BULGARIAN": "bg", "CATALAN": "ca",
    "CHINESE": "zh", "CROATIAN": "hr", "CZECH": "cs", "DANISH": "da", "DUTCH": "nl",
    "ENGLISH": "en", "ESPERANTO": "eo", "ESTONIAN": "et", "FINNISH": "fi",
    "FRENCH": "fr", "GANDA": "lg", "GEORGIAN": "ka", "GERMAN": "de", "GREEK": "el",
    "GUJARATI": "gu", "HEBREW": "he", "HINDI": "hi", "HUNGARIAN": "hu",
    "ICELANDIC": "is", "INDONESIAN": "id", "IRISH": "ga", "ITALIAN": "it",
    "JAPANESE": "ja", "KAZAKH": "kk", "KOREAN": "ko", "LATIN": "la", "LATVIAN": "lv",
    "LITHUANIAN": "lt", "MACEDONIAN": "mk", "MALAY": "ms", "MAORI": "mi",
    "MARATHI": "mr", "MONGOLIAN": "mn", "NYNORSK": "nn", "PERSIAN": "fa",
    "POLISH": "pl", "PORTUGUESE": "pt", "PUNJABI": "pa", "ROMANIAN": "ro",
    "RUSSIAN": "ru", "SERBIAN": "sr", "SHONA": "sn", "SLOVAK": "sk", "SLOVENE": "sl",
    "SOMALI": "so", "SOTHO": "st", "SPANISH": "es", "SWAHILI": "sw", "SWEDISH": "sv",
    "TAGALOG": "tl", "TAMIL": "ta", "TELUGU": "te", "THAI": "th", "TSONGA": "ts",
    "TSWANA": "tn", "TURKISH": "tr", "UKRAINIAN": "uk", "URDU": "ur",
    "VIETNAMESE": "vi", "WELSH": "cy", "XHOSA": "xh", "YORUBA": "yo", "ZULU": "zu",
}

# The languages of extra-wordlists.tar.xz (prepare_extra.py: a declaration text, stopwords,
# a spelling list for be) whose words are not decided by their script: their lists are too
# short for the n-gram tier to see more than the commonest trigrams. Not Marathi: Lingua
# keeps letters only, so its Devanagari trigrams are consonant skeletons without the vowel
# signs and viramas (combining marks) that the detector's words keep ("करण" for करणे); with
# them Marathi words matched nothing and the tune half's Marathi sentences fell from 76% to
# 62% right, lost to Hindi. (The pair below reads a Devanagari word as Lingua counts it,
# runs of letters between the marks, and tells Marathi from Hindi where a verdict names
# one of them: docs/langid.md, "Marathi beside Hindi".)
LANGUAGES = "az be cy ga la lg mi mn sn so st sw tn ts ur xh yo zu".split()

# Written variants and the language whose word lists they are told from: Nynorsk has no
# word list of its own (its only spelling list is GPL) and reads as Bokmål to the tiers.
VARIANTS = {"nn": "nb"}
# Pairs of languages that their word lists confuse: wordlists/<first>.pair, told apart
# the same way (values ln P_first - ln P_second), asked only where the verdict names one
# of the two (docs/langid.md, "Close pairs"), and only where the sum reaches the pair's
# floor (nats). first: (second, floor, n-grams kept; None: --variant-top). Floors and
# sizes from the tune half; every pair's n-grams share the 12 MB the dictionary may take.
PAIRS = {
    # Xhosa/Zulu and Sotho/Tswana have a declaration's words each, so the n-grams always
    # decide. Sotho's pair keeps 16,000 n-grams (tune half unchanged but a sentence) to
    # make room for Latin's.
    "xh": ("zu", 0, None),
    "st": ("tn", 0, 16000),
    # Marathi's web list is read as Hindi's large list on 12.8% of the tune half's
    # Marathi sentences, but Hindi's words are strong evidence on a short text: at 0
    # Hindi words fell from 81.6 to 58.4% right, at 6 none of Hindi's figures moved (4-6
    # gave the same means). 16,000 n-grams (not 20,000: the same figures) make room for
    # Urdu's.
    "mr": ("hi", 6, 16000),
    # Nynorsk has no list, so its sentences that Swedish or Danish words win never reach
    # the variant tier (4.8% and 2.4% of the tune half's): Swedish and Danish are each
    # told from Nynorsk (ln P_sv - ln P_nn), evidence for Nynorsk, asked where a verdict
    # names Swedish or Danish; floor 4 (0 cost Swedish and Danish single words 7 and 4
    # points; 8 gave the same sentences and fewer Nynorsk words).
    "sv": ("nn", 4, 5000),
    "da": ("nn", 4, 5000),
    # Serbian's Cyrillic list is its Latin subtitle list transliterated, and a short
    # Cyrillic word without ђ or ћ in it read as Macedonian (157 of the 500 dev single
    # words). Floor 2: at 0 Macedonian single words fell 15 points and Serbian sentences
    # 4; 2 kept 9 of Serbian's 13-point gain on words and cost Macedonian 5; 3 to 8 gave
    # less.
    "sr": ("mk", 2, 4000),
    # Urdu words that its list shares with Persian's tie with Persian or go to it (Urdu
    # word pairs 84.0, Lingua 94.5). ur / fa pairs at floor 0: 94.0 / 84.0, 4: 95.2 /
    # 89.6, 6: 94.8 / 90.4, 8: 94.8 / 89.6; Persian words lose 0.8 at 4, none at 6.
    "ur": ("fa", 6, 3000),
    # Azerbaijani words without ə read as Turkish (88 of the 2,000 dev words and pairs);
    # the 1,500 n-grams that fit. az / tr pairs at floor 2: 88.0 / 88.4, 6: 91.6 / 88.4,
    # 12: 92.8 / 88.0, against 91.6 / 85.6 without; az words fall below 73.2 under 8 and
    # at 16.
    "az": ("tr", 12, 1500),
    # Latin sentences read as Italian (Latin 5.6 points under Lingua on the report half's
    # sentences). la / it pairs at floor 0: 79.6 / 90.8, Italian words 78.8 -> 71.6; 4:
    # 79.6 / 92.8, no Italian figure down; 8: 78.8 / 92.8.
    "la": ("it", 4, 4000),
}
VARIANT_TOP = 20000
VARIANT_CLAMP = 8.0  # nats
# An n-gram neither model has any prefix of (letters outside both alphabets): this
# probability on that side.
VARIANT_UNSEEN = 1e-7


def leb128(data, i):
    value, shift = 0, 0
    while True:
        b = data[i]
        i += 1
        value |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            return value, i


def linear_memory(wasm):
    """The module's active data segments laid out at their addresses."""
    assert wasm[:8] == b"\0asm\1\0\0\0", "not a WebAssembly module"
    segments = []
    i = 8
    while i < len(wasm):
        section = wasm[i]
        size, i = leb128(wasm, i + 1)
        if section == 11:
            j = i
            count, j = leb128(wasm, j)
            for _ in range(count):
                flags, j = leb128(wasm, j)
                assert flags == 0 and wasm[j] == 0x41, "unexpected data segment form"
                address, j = leb128(wasm, j + 1)
                assert wasm[j] == 0x0B
                length, j = leb128(wasm, j + 1)
                segments.append((address, wasm[j:j + length]))
                j += length
        i += size
    memory = bytearray(max(a + len(b) for a, b in segments))
    for address, data in segments:
        memory[address:address + len(data)] = data
    return bytes(memory)


def embedded_files(memory, name):
    """Every embedded file called `name`: (language, {n-gram: probability})."""
    address = memory.find(name.encode())
    assert address > 0, name
    record = struct.pack("<II", address, len(name))
    out = []
    for m in re.finditer(re.escape(record), memory):
        start, length = struct.unpack("<II", memory[m.start() + 8:m.start() + 16])
        model = json.loads(brotli.decompress(memory[start:start + length]))
        table = {}
        for fraction, ngrams in model["ngrams"].items():
            num, den = fraction.split("/")
            for g in ngrams.split(" "):
                table[g] = int(num) / int(den)
        out.append((model["language"], table))
    return out


def backed_off(model, gram):
    """ln P(gram) as Lingua scores an n-gram: its own entry, else its longest prefix's."""
    for k in range(len(gram), 0, -1):
        p = model[k - 1].get(gram[:k])
        if p:
            return math.log(p)
    return math.log(VARIANT_UNSEEN)


def chain_probability(model, gram):
    """P(gram) in running text: the chain of conditional probabilities."""
    p = 1.0
    for k in range(1, len(gram) + 1):
        p *= model[k - 1].get(gram[:k], 0.0)
    return p


def variant_lines(variant, base, top):
    """The lines of wordlists/<variant>.variant (module docstring)."""
    grams = set()
    for model in (variant, base):
        for table in model:
            grams.update(table)
    # Lingua keeps some letters in forms that Unicode normalisation takes apart
    # (Devanagari's letters with a nukta, U+0958-U+095F, are composition
    # exclusions: NFC makes them a letter and a combining mark). The detector
    # reads normalised text, letters alone, so such n-grams never match: left out.
    grams = {g for g in grams if unicodedata.normalize("NFC", g) == g}
    value, weight = {}, {}
    for g in grams:
        d = backed_off(variant, g) - backed_off(base, g)
        value[g] = round(100 * max(-VARIANT_CLAMP, min(VARIANT_CLAMP, d)))
        weight[g] = (chain_probability(variant, g) + chain_probability(base, g)) / 2 * abs(d)
    ranked = sorted((g for g in grams if value[g] != 0), key=lambda g: (-weight[g], g))
    return [f"{g} {value[g]}\n" for g in sorted(ranked[:top])]


def main():
    args = sys.argv[1:]
    languages, top = LANGUAGES, 6000
    if "--languages" in args:
        i = args.index("--languages")
        languages = args[i + 1].split(",")
        del args[i:i + 2]
    variant_top = VARIANT_TOP
    if "--variant-top" in args:
        i = args.index("--variant-top")
        variant_top = int(args[i + 1])
        del args[i:i + 2]
    if "--top" in args:
        i = args.index("--top")
        top = int(args[i + 1])
        del args[i:i + 2]
    source, out = args
    with open(source, "rb") as f:
        package = f.read()
    digest = hashlib.sha256(package).hexdigest()
    if digest != SHA256:
        sys.exit(f"{source}: sha256 {digest}, expected {SHA256} (@bluzzi/lingua 1.5.0)")
    with tarfile.open(fileobj=io.BytesIO(package)) as tar:
        wasm = tar.extractfile("package/src/lingua_bg.wasm").read()
    memory = linear_memory(wasm)
    models = {}
    names = ["unigrams", "bigrams", "trigrams", "quadrigrams", "fivegrams"]
    for order, name in enumerate(names):
        for language, table in embedded_files(memory, name + ".json.br"):
            models.setdefault(CODES[language], [None] * len(names))[order] = table
    with tarfile.open(out, "w:xz", preset=9) as tar:
        for code in sorted(languages):
            uni, bi, tri = models[code][:3]
            joint = {}
            for g, p in tri.items():
                chars = list(g)
                if len(chars) != 3:
                    continue
                a, ab = chars[0], chars[0] + chars[1]
                joint[g] = uni.get(a, 0.0) * bi.get(ab, 0.0) * p
            ranked = sorted(joint.items(), key=lambda gp: (-gp[1], gp[0]))
            lines = [f"{g} {round(p * 1e9)}\n" for g, p in ranked[:top] if round(p * 1e9) > 0]
            add_file(tar, f"wordlists/{code}.trigrams", "".join(lines).encode("utf-8"))
            print(f"{code}: {len(lines)} trigrams of {len(joint)}", file=sys.stderr)
        for code, base in sorted(VARIANTS.items()):
            lines = variant_lines(models[code], models[base], variant_top)
            add_file(tar, f"wordlists/{code}.variant",
                     "".join([f"variant-of {base}\n"] + lines).encode("utf-8"))
            print(f"{code}: {len(lines)} n-grams telling it from {base}", file=sys.stderr)
        for code, (other, floor, top) in sorted(PAIRS.items()):
            top = top or variant_top
            lines = variant_lines(models[code], models[other], top)
            head = f"pair-with {other}" + (f" {floor}" if floor else "") + "\n"
            add_file(tar, f"wordlists/{code}.pair", "".join([head] + lines).encode("utf-8"))
            print(f"{code}: {len(lines)} n-grams telling it from {other}", file=sys.stderr)


if __name__ == "__main__":
    main()
