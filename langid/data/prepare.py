#!/usr/bin/env python3
"""Makes langid/data/wordlists.tar.xz from hermitdave/FrequencyWords lists.

Usage: langid/data/prepare.py SOURCE_DIR OUT_TAR [--max-words N]

SOURCE_DIR is a copy of shared/data/wordfreq (<code>.txt "word count" lists plus
extra-2018-full/). For each language it writes <code>.txt holding the N most frequent lines
(default 20000), with these changes, so that file names are the codes langid reports:
  - extra-2018-full/<code>.txt replaces <code>.txt where it is longer (af eo hi hy kk si ta te tl);
  - no -> nb (the lists call Norwegian Bokmal "no"; mail and ISO 639-1 say nb);
  - pt and pt_br are merged (counts summed) into pt;
  - zh_cn and zh_tw are dropped (Han text is decided by script, zh.txt stays);
  - languages whose script decides them alone (el he hy ja ka ko th zh bn ml si ta te) keep
    only 1000 lines: the dictionary records them but stores none of their words.
The output is deterministic (sorted names, fixed mtime, no owner) so the tarball only changes
when the lists do. Licence: CC BY-SA 4.0, see LICENSE-and-SOURCE.txt beside this script.
"""
import io
import os
import sys
import tarfile

SCRIPT_DECIDED = {"el", "he", "hy", "ja", "ka", "ko", "th", "zh", "bn", "ml", "si", "ta", "te"}
RENAME = {"no": "nb", "pt_br": "pt"}
DROP = {"zh_cn", "zh_tw"}


def read_list(path):
    counts = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            parts = line.rstrip("\n").rsplit(" ", 1)
            if len(parts) != 2 or not parts[1].isdigit():
                continue
            counts[parts[0]] = counts.get(parts[0], 0) + int(parts[1])
    return counts


def add_file(tar, name, data):
    """Adds `data` (bytes) to the open tarball as `name`: mode 0644, mtime 0, no owner,
    so that the same data always gives the same tarball."""
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mtime = 0
    info.mode = 0o644
    tar.addfile(info, io.BytesIO(data))


def write_wordlists(out, lists, limit=lambda code: None):
    """Writes lists (code -> {word: count}) to the tarball `out` as
    wordlists/<code>.txt, most frequent first (ties by word), at most
    limit(code) lines (None: all); deterministic, as the module says."""
    with tarfile.open(out, "w:xz", preset=9) as tar:
        for code in sorted(lists):
            items = sorted(lists[code].items(), key=lambda wc: (-wc[1], wc[0]))[:limit(code)]
            data = "".join(f"{w} {c}\n" for w, c in items).encode("utf-8")
            add_file(tar, f"wordlists/{code}.txt", data)
            print(f"{code}: {len(items)} words", file=sys.stderr)


def main():
    args = sys.argv[1:]
    max_words = 20000
    if "--max-words" in args:
        i = args.index("--max-words")
        max_words = int(args[i + 1])
        del args[i:i + 2]
    source, out = args
    merged = {}
    for name in sorted(os.listdir(source)):
        if not name.endswith(".txt") or name.startswith("LICENSE"):
            continue
        code = name[:-4]
        if code in DROP:
            continue
        path = os.path.join(source, name)
        extra = os.path.join(source, "extra-2018-full", name)
        if os.path.exists(extra) and os.path.getsize(extra) > os.path.getsize(path):
            path = extra
        counts = read_list(path)
        target = RENAME.get(code, code)
        into = merged.setdefault(target, {})
        for w, c in counts.items():
            into[w] = into.get(w, 0) + c
    write_wordlists(out, merged,
                    lambda code: 1000 if code in SCRIPT_DECIDED else max_words)


if __name__ == "__main__":
    main()
