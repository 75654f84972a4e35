#!/usr/bin/env python3
"""check_metrics.py FILE [SERIES...]: checks that FILE is well-formed
Prometheus text exposition (format 0.0.4), as promtool would, then prints the
value of each SERIES given ('name' or 'name{label="value",...}', labels in the
order the file has them), one per line. Exit status 0, or 1 with one line
saying what is wrong.

Checked: the line grammar (names, label escapes \\\\ \\" \\n, values Go's
ParseFloat reads); HELP and TYPE at most once per family and TYPE before its
samples; a family's samples together; no series twice; counters not
negative; for each histogram series, le bounds increasing and ending with
+Inf, bucket counts non-decreasing, _count equal to the +Inf bucket and a
_sum present."""
import math
import re
import sys

NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
LABEL = r"[a-zA-Z_][a-zA-Z0-9_]*"
TYPES = {"counter", "gauge", "histogram", "summary", "untyped"}


def fail(lineno, why):
    print(f"check_metrics: line {lineno}: {why}")
    sys.exit(1)


def parse_value(lineno, text):
    if text in ("+Inf", "Inf", "-Inf", "NaN"):
        return float(text.replace("Inf", "inf").replace("NaN", "nan"))
    if not re.fullmatch(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", text):
        fail(lineno, f"bad value '{text}'")
    return float(text)


def parse_labels(lineno, text, i):
    """Parses '{a="x",b="y"}' from text[i] == '{'; returns (labels, next)."""
    labels = []
    i += 1
    while True:
        if text[i:i + 1] == "}":
            return labels, i + 1
        m = re.compile(LABEL).match(text, i)
        if not m:
            fail(lineno, "bad label name")
        name = m.group(0)
        i = m.end()
        if text[i:i + 2] != '="':
            fail(lineno, f"label {name}: expected =\"")
        i += 2
        value = []
        while True:
            if i >= len(text):
                fail(lineno, f"label {name}: unterminated value")
            c = text[i]
            if c == "\\":
                nxt = text[i + 1:i + 2]
                if nxt not in ("\\", '"', "n"):
                    fail(lineno, f"label {name}: bad escape \\{nxt}")
                value.append("\n" if nxt == "n" else nxt)
                i += 2
            elif c == '"':
                i += 1
                break
            else:
                value.append(c)
                i += 1
        if any(name == n for n, _ in labels):
            fail(lineno, f"label {name} twice")
        labels.append((name, "".join(value)))
        if text[i:i + 1] == ",":
            i += 1
        elif text[i:i + 1] != "}":
            fail(lineno, "expected , or } after a label")


def family_of(name, types):
    for suffix in ("_bucket", "_sum", "_count"):
        base = name[: -len(suffix)]
        if name.endswith(suffix) and types.get(base) == "histogram":
            return base
    return name


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        sys.exit(2)
    with open(sys.argv[1], encoding="utf-8") as f:
        text = f.read()
    if text and not text.endswith("\n"):
        fail(text.count("\n") + 1, "no newline at the end")
    types, helps, done, seen = {}, set(), set(), {}
    current = None
    hist = {}  # (family, labels without le) -> {"buckets": [], "sum":, "count":}
    for lineno, line in enumerate(text.splitlines(), 1):
        if line.startswith("#"):
            m = re.fullmatch(rf"# (HELP|TYPE) ({NAME}) ?(.*)", line)
            if not m:
                continue  # a plain comment
            kind, name, rest = m.groups()
            if kind == "TYPE":
                if rest not in TYPES:
                    fail(lineno, f"{name}: unknown type '{rest}'")
                if name in types:
                    fail(lineno, f"{name}: TYPE twice")
                if name in done or name == current:
                    fail(lineno, f"{name}: TYPE after its samples")
                types[name] = rest
            else:
                if name in helps:
                    fail(lineno, f"{name}: HELP twice")
                if re.search(r"\\[^\\n]", rest.replace("\\\\", "")):
                    fail(lineno, f"{name}: bad escape in HELP")
                helps.add(name)
            continue
        if not line.strip():
            continue
        m = re.compile(NAME).match(line)
        if not m:
            fail(lineno, "bad metric name")
        name, i = m.group(0), m.end()
        labels = []
        if line[i:i + 1] == "{":
            labels, i = parse_labels(lineno, line, i)
        parts = line[i:].split()
        if line[i:i + 1] != " " or len(parts) not in (1, 2):
            fail(lineno, "expected ' value [timestamp]'")
        value = parse_value(lineno, parts[0])
        family = family_of(name, types)
        if family != current:
            if family in done:
                fail(lineno, f"{family}: samples not together")
            if current is not None:
                done.add(current)
            current = family
        key = name + "{" + ",".join(f'{n}="{v}"' for n, v in labels) + "}"
        if key in seen:
            fail(lineno, f"{key} twice")
        seen[key] = value
        if types.get(family) == "counter" and not value >= 0:
            fail(lineno, f"{key}: a counter below 0")
        if types.get(family) == "histogram":
            rest = tuple((n, v) for n, v in labels if n != "le")
            h = hist.setdefault((family, rest), {"buckets": [], "sum": None,
                                                 "count": None, "line": lineno})
            if name.endswith("_bucket"):
                le = [v for n, v in labels if n == "le"]
                if not le:
                    fail(lineno, f"{key}: a bucket without le")
                h["buckets"].append((parse_value(lineno, le[0]), value))
            elif name.endswith("_sum"):
                h["sum"] = value
            elif name.endswith("_count"):
                h["count"] = value
    for (family, rest), h in hist.items():
        where = family + str(dict(rest))
        b = h["buckets"]
        if not b or not math.isinf(b[-1][0]):
            fail(h["line"], f"{where}: no le=\"+Inf\" bucket last")
        for (le0, c0), (le1, c1) in zip(b, b[1:]):
            if not le1 > le0:
                fail(h["line"], f"{where}: le {le1} after {le0}")
            if c1 < c0:
                fail(h["line"], f"{where}: bucket le={le1} below le={le0}")
        if h["count"] is None or h["sum"] is None:
            fail(h["line"], f"{where}: no _count or _sum")
        if h["count"] != b[-1][1]:
            fail(h["line"], f"{where}: _count {h['count']} != +Inf {b[-1][1]}")
    for series in sys.argv[2:]:
        key = series if "{" in series else series + "{}"
        if key not in seen:
            fail(0, f"no series {series}")
        v = seen[key]
        print(int(v) if v == int(v) else v)


if __name__ == "__main__":
    main()
