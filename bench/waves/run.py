#!/usr/bin/env python3
"""run.py: wanted waves vs spam waves, scored by the shipped SpamAssassin rules (issue 22).

    run.py --build build --half tune|report [--limit N] [--seed S] [--jobs J]
           [--corpus DIR] [--data DIR] [--kinds K,...] [--cf FILE]
           [--json FILE] [--show N] [--check-sa N]

Generates the scenario streams of one corpus half (generate.py; --data DIR
reuses a folder it wrote), then per scenario, in a fresh temporary folder:
a SQLite store, a config

    [store]  path = "<tmp>/store.db"
    [langid] dictionary = "<build>/share/mailwave/langid.dict"
    [wave]   trusted_authserv_ids = ["mx.site.example"]
             allow = "<tmp>/allow"          (scenarios with allow lines)

and one `mailwave -c CONF check --store DB --json --sender S --rcpt R...
--client-ip IP --queue-id Q --now T FILE` per copy, in arrival order (the CLI
takes one envelope per process), T = 2026-11-22T08:00:00Z + the copy's
offset. Where a scenario says so, `mailwave -c CONF learn --ham|--spam
--store DB FILE` runs on a copy right after that copy's check. Each copy's
X-Mailwave-Wave value is scored with milter/dist/mailwave.cf (sa_rules.py,
checked against real spamassassin by `sa_rules.py --check` and --check-sa).

Targets (issue 22, "Done when"):
  wanted       newsletter, list, learn_ham, ip_allow: copies 2.. score <= 0.5
               AND carry X-Mailwave-Wave (still reported as duplicates): >= 99 %
  spam         copies 6.. score >= 3.0: >= 95 %
  forged       copies 6.. score >= 3.0: >= 90 %
  learn_spam   copies 2.. (after copy 1 is learned as spam) >= 3.0
  learn_ham    copies 2.. (after copy 1 is learned as ham) <= 0.5, duplicates
  ip_allow     copies 2.. <= 0.5, duplicates
Copy 1 of a wanted wave must score <= 0.5 too (it has no earlier mail, so no
header); it is counted in the "all copies" column.

Prints a table per kind and per target, the failing copies' header values
(--show N per kind) with the fields they share, and writes everything to
--json (default BUILD/waves_eval_HALF.json). A mailwave without issue 22's
check options (--rcpt, --client-ip) is run without them and without the
[wave] keys it does not know, and the table says so: that measures the
streams' duplicate detection only.

Python's standard library only.
"""

import argparse
import collections
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import generate  # noqa: E402
import sa_rules  # noqa: E402

ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
WANTED_KINDS = ("newsletter", "list", "learn_ham", "ip_allow")
# (name, kinds, what must hold, target share)
TARGETS = [
    ("wanted <= 0.5 and dup", WANTED_KINDS, 0.99),
    ("spam >= 3.0 from copy 6", ("spam",), 0.95),
    ("forged >= 3.0 from copy 6", ("forged",), 0.90),
    ("learned spam >= 3.0 after learn", ("learn_spam",), None),
    ("learned ham <= 0.5 after learn", ("learn_ham",), None),
    ("ip allow <= 0.5", ("ip_allow",), None),
]


def iso(t):
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


def cli_features(binary):
    p = subprocess.run([binary, "check", "--help"], capture_output=True, text=True)
    text = p.stdout + p.stderr
    q = subprocess.run([binary, "learn", "--help"], capture_output=True, text=True)
    return {"envelope": "--client-ip" in text and "--rcpt" in text,
            "learn": q.returncode == 0}


def write_config(tmp, build, allow_lines, features):
    lines = ["[store]", 'path = "%s"' % os.path.join(tmp, "store.db"), "",
             "[langid]", 'dictionary = "%s"' % os.path.join(build, "share", "mailwave", "langid.dict"),
             ""]
    if features["envelope"]:
        lines += ["[wave]", 'trusted_authserv_ids = ["%s"]' % generate.AUTHSERV]
        if allow_lines:
            allow = os.path.join(tmp, "allow")
            with open(allow, "w") as fh:
                fh.write("# bench/waves: this scenario's allow list\n")
                fh.write("".join(line + "\n" for line in allow_lines))
            lines.append('allow = "%s"' % allow)
    conf = os.path.join(tmp, "mailwave.toml")
    with open(conf, "w") as fh:
        fh.write("\n".join(lines) + "\n")
    return conf


def wave_fields(value):
    """'dup=near; ...; wave=yes' -> {'dup': 'near', ...}."""
    out = {}
    for item in (value or "").split(";"):
        if "=" in item:
            k, v = item.strip().split("=", 1)
            out[k] = v
    return out


def run_scenario(sdir, binary, build, rules, features):
    with open(os.path.join(sdir, "scenario.json")) as fh:
        sc = json.load(fh)
    learn_after = collections.defaultdict(list)
    for step in sc["learn"]:
        learn_after[step["after_copy"]].append(step)
    result = {"id": sc["id"], "kind": sc["kind"], "label": sc["label"],
              "source": sc["source"], "target": sc["target"], "copies": [],
              "learn": [], "errors": []}
    with tempfile.TemporaryDirectory(prefix="mw-waves-") as tmp:
        conf = write_config(tmp, build, sc["allow"], features)
        store = os.path.join(tmp, "store.db")
        for n, c in enumerate(sc["copies"], 1):
            cmd = [binary, "-c", conf, "check", "--store", store, "--json",
                   "--sender", c["sender"], "--queue-id", c["queue_id"],
                   "--now", iso(generate.BASE_TIME + c["offset_s"])]
            if features["envelope"]:
                for r in c["rcpts"]:
                    cmd += ["--rcpt", r]
                cmd += ["--client-ip", c["client_ip"]]
            cmd += ["--", os.path.join(sdir, c["file"])]
            t0 = time.monotonic()
            p = subprocess.run(cmd, capture_output=True, text=True)
            elapsed = time.monotonic() - t0
            header, js = None, {}
            if p.returncode != 0 or not p.stdout.strip():
                result["errors"].append("copy %d: exit %d: %s" % (n, p.returncode, p.stderr.strip()[-300:]))
            else:
                js = json.loads(p.stdout.strip().splitlines()[-1])
                for h in js.get("headers", []):
                    if h.startswith("X-Mailwave-Wave: "):
                        header = h[len("X-Mailwave-Wave: "):]
            score, hits = rules.score_value(header)
            js.pop("timings_us", None)
            js.pop("headers", None)
            result["copies"].append({"n": n, "header": header, "score": score, "hits": hits,
                                     "seconds": round(elapsed, 3), "exit": p.returncode,
                                     "json": js})
            for step in learn_after.get(n, []):
                f = os.path.join(sdir, sc["copies"][step["copy"] - 1]["file"])
                q = subprocess.run([binary, "-c", conf, "learn", "--" + step["as"],
                                    "--store", store, f], capture_output=True, text=True)
                result["learn"].append({"after_copy": n, "as": step["as"], "exit": q.returncode,
                                        "output": (q.stdout + q.stderr).strip()[-300:]})
                if q.returncode != 0:
                    result["errors"].append("learn --%s after copy %d: exit %d: %s" % (
                        step["as"], n, q.returncode, (q.stderr or q.stdout).strip()[-300:]))
    judge(result)
    return result


def judge(result):
    t = result["target"]
    for c in result["copies"]:
        if c["n"] < t["from_copy"]:
            c["counted"] = False
            c["pass"] = ("max_score" not in t) or c["score"] <= t["max_score"]
            continue
        c["counted"] = True
        if "max_score" in t:
            c["pass"] = c["score"] <= t["max_score"] and (c["header"] is not None or not t.get("dup"))
        else:
            c["pass"] = c["score"] >= t["min_score"]


def summarise(results):
    kinds = collections.OrderedDict()
    for k in generate.KINDS:
        rs = [r for r in results if r["kind"] == k]
        if not rs:
            continue
        counted = [c for r in rs for c in r["copies"] if c["counted"]]
        allc = [c for r in rs for c in r["copies"]]
        dup = [c for r in rs for c in r["copies"] if c["n"] >= 2]
        kinds[k] = {
            "scenarios": len(rs), "copies": len(allc), "counted": len(counted),
            "passed": sum(c["pass"] for c in counted),
            "all_passed": sum(c["pass"] for c in allc),
            "dup": sum(c["header"] is not None for c in dup), "dup_of": len(dup),
            "wave_yes": sum(wave_fields(c["header"]).get("wave") == "yes" for c in dup),
            "mean_score": round(sum(c["score"] for c in counted) / max(1, len(counted)), 2),
            "errors": sum(len(r["errors"]) for r in rs),
        }
    groups = []
    for name, ks, target in TARGETS:
        present = [k for k in ks if k in kinds]
        if not present:
            continue
        n = sum(kinds[k]["counted"] for k in present)
        p = sum(kinds[k]["passed"] for k in present)
        share = p / n if n else 0.0
        groups.append({"target": name, "kinds": present, "counted": n, "passed": p,
                       "share": round(share, 4), "goal": target,
                       "met": None if target is None else share >= target})
    return kinds, groups


def failures(results, show):
    out = collections.OrderedDict()
    for k in generate.KINDS:
        bad = [(r, c) for r in results if r["kind"] == k for c in r["copies"]
               if c["counted"] and not c["pass"]]
        if not bad:
            continue
        pattern = collections.Counter()
        for _, c in bad:
            f = wave_fields(c["header"])
            if c["header"] is None:
                pattern["no header (not a duplicate)"] += 1
            else:
                key = ", ".join("%s=%s" % (x, f[x]) for x in ("kind", "why", "wave") if x in f)
                pattern[(key or "wave=" + f.get("wave", "?")) + " -> " + ",".join(c["hits"])] += 1
        examples = []
        seen = set()
        for r, c in bad:
            if len(examples) >= show or r["id"] in seen:
                continue
            seen.add(r["id"])
            examples.append({"scenario": r["id"], "copy": c["n"], "score": c["score"],
                             "hits": c["hits"], "header": c["header"]})
        out[k] = {"failed": len(bad), "patterns": pattern.most_common(8), "examples": examples}
    return out


def print_report(meta, kinds, groups, fails):
    print("bench/waves: %s half, seed %d, %d scenarios, %d checks in %.1f s (%.3f s/check, %d jobs); "
          "rules %s" % (meta["half"], meta["seed"], meta["scenarios"], meta["checks"],
                         meta["wall_s"], meta["s_per_check"], meta["jobs"], meta["cf"]))
    if not meta["features"]["envelope"]:
        print("NOTE: this mailwave has no --rcpt/--client-ip: run without envelope options "
              "and without [wave] trusted_authserv_ids/allow (duplicate detection only)")
    if not meta["features"]["learn"]:
        print("NOTE: this mailwave has no learn command: learn steps failed")
    print()
    print("| kind | scenarios | copies | counted | target | passed | all copies ok | dup (copies 2..) | wave=yes | mean score |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for k, v in kinds.items():
        t = ("<= 0.5, dup, from copy 2" if k in WANTED_KINDS else
             ">= 3.0 from copy %d" % (6 if k in ("spam", "forged") else 2))
        print("| %s | %d | %d | %d | %s | %.1f %% | %.1f %% | %.1f %% | %.1f %% | %.2f |" % (
            k, v["scenarios"], v["copies"], v["counted"], t,
            100.0 * v["passed"] / max(1, v["counted"]),
            100.0 * v["all_passed"] / max(1, v["copies"]),
            100.0 * v["dup"] / max(1, v["dup_of"]), 100.0 * v["wave_yes"] / max(1, v["dup_of"]),
            v["mean_score"]))
    print()
    print("| target | copies | passed | goal | met |")
    print("|---|---|---|---|---|")
    for g in groups:
        print("| %s | %d | %.1f %% | %s | %s |" % (
            g["target"], g["counted"], 100.0 * g["share"],
            "-" if g["goal"] is None else "%.0f %%" % (100 * g["goal"]),
            "-" if g["met"] is None else ("yes" if g["met"] else "NO")))
    for k, f in fails.items():
        print()
        print("%s: %d failing copies; by header fields -> rules hit:" % (k, f["failed"]))
        for pat, n in f["patterns"]:
            print("  %5d  %s" % (n, pat))
        for e in f["examples"]:
            print("  %s copy %d score %.2f [%s]: %s" % (e["scenario"], e["copy"], e["score"],
                                                      ",".join(e["hits"]) or "-", e["header"]))


def check_sa(results, cf, n):
    """Compares sa_rules with spamassassin on n of this run's header values
    (distinct values, spread over kinds and scores)."""
    if not sa_rules.spamassassin_available():
        print("--check-sa: spamassassin is not installed; skipped")
        return None
    # One value per distinct (score, rules hit), then other distinct values
    # taking the kinds in turn, up to n.
    values, combos = [], set()
    pending = collections.OrderedDict()
    for r in results:
        for c in r["copies"]:
            key = (c["score"], tuple(c["hits"]))
            if key not in combos:
                combos.add(key)
                values.append(c["header"])
            else:
                pending.setdefault(r["kind"], []).append(c["header"])
    queues = list(pending.values())
    while len(values) < n and any(queues):
        for q in queues:
            while q and q[0] in values:
                q.pop(0)
            if q and len(values) < n:
                values.append(q.pop(0))
    values = values[:n]
    with open(cf, encoding="utf-8") as fh:
        text = fh.read()
    print()
    print("--check-sa: sa_rules vs spamassassin on %d header values of this run" % len(values))
    bad = sa_rules.compare(text, values, os.path.basename(cf))
    print("--check-sa: %s" % ("all agree" if not bad else "%d DIFFER" % bad))
    return {"values": len(values), "differ": bad}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", required=True, help="the build folder (bin/mailwave, share/mailwave)")
    ap.add_argument("--half", choices=["tune", "report"], required=True)
    ap.add_argument("--limit", type=int, help="at most N scenarios of each kind")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2, help="scenarios run at once (default 2)")
    ap.add_argument("--corpus", default=os.path.join(ROOT, "..", "shared", "data", "mail"))
    ap.add_argument("--data", help="a folder generate.py wrote (else a temporary one)")
    ap.add_argument("--kinds", help="comma-separated subset of " + ",".join(generate.KINDS))
    ap.add_argument("--cf", default=sa_rules.DEFAULT_CF)
    ap.add_argument("--json", help="where to write the results (default BUILD/waves_eval_HALF.json)")
    ap.add_argument("--show", type=int, default=3, help="failing examples per kind (default 3)")
    ap.add_argument("--check-sa", type=int, default=0, metavar="N",
                    help="compare the rule evaluator with spamassassin on N of the run's values")
    args = ap.parse_args()

    binary = os.path.join(args.build, "bin", "mailwave")
    if not os.access(binary, os.X_OK):
        print("run.py: no %s (build it: cmake --build %s --target mailwave)" % (binary, args.build),
              file=sys.stderr)
        return 2
    rules = sa_rules.load(args.cf)
    features = cli_features(binary)
    kinds = args.kinds.split(",") if args.kinds else None
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="mw-waves-data-") as tmpdata:
        data = args.data
        if data and os.path.exists(os.path.join(data, "manifest.json")):
            with open(os.path.join(data, "manifest.json")) as fh:
                manifest = json.load(fh)
            if manifest["half"] != args.half:
                print("run.py: %s holds the %s half" % (data, manifest["half"]), file=sys.stderr)
                return 2
        else:
            if not os.path.isdir(args.corpus):
                print("run.py: no corpus at %s" % args.corpus, file=sys.stderr)
                return 2
            data = data or tmpdata
            manifest = generate.generate(args.corpus, data, args.seed, args.half, args.limit, kinds)
        gen_s = time.monotonic() - start
        ids = [s["id"] for s in manifest["scenarios"]
               if (not kinds or s["kind"] in kinds)]
        if args.limit is not None:
            per = collections.Counter()
            keep = []
            for i in ids:
                k = i.rsplit("-", 1)[0]
                if per[k] < args.limit:
                    keep.append(i)
                    per[k] += 1
            ids = keep
        run_start = time.monotonic()
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as ex:
            results = list(ex.map(lambda i: run_scenario(os.path.join(data, i), binary, args.build,
                                                         rules, features), ids))
        run_s = time.monotonic() - run_start
    checks = sum(len(r["copies"]) for r in results)
    kinds_sum, groups = summarise(results)
    fails = failures(results, args.show)
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    meta = {"half": args.half, "seed": args.seed, "limit": args.limit, "jobs": args.jobs,
            "build": os.path.abspath(args.build), "commit": commit,
            "cf": os.path.relpath(args.cf, ROOT), "features": features,
            "scenarios": len(results), "checks": checks,
            "generate_s": round(gen_s, 1), "wall_s": round(time.monotonic() - start, 1),
            "run_s": round(run_s, 1), "s_per_check": round(run_s * args.jobs / max(1, checks), 3),
            "command": " ".join(sys.argv)}
    print_report(meta, kinds_sum, groups, fails)
    errors = [e for r in results for e in r["errors"]]
    if errors:
        print()
        print("%d errors, e.g.:" % len(errors))
        for e in errors[:5]:
            print("  " + e)
    sa = check_sa(results, args.cf, args.check_sa) if args.check_sa else None
    out = args.json or os.path.join(args.build, "waves_eval_%s.json" % args.half)
    with open(out, "w") as fh:
        json.dump({"meta": meta, "kinds": kinds_sum, "targets": groups, "failures": fails,
                   "check_sa": sa, "scenarios": results}, fh, indent=1)
        fh.write("\n")
    print()
    print("results: %s" % out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
