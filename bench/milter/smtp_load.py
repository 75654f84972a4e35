#!/usr/bin/env python3
"""smtp_load.py: send corpus messages to an SMTP server over parallel sessions.

    smtp_load.py --server 127.0.0.1:PORT --sessions 20 --messages 5000 FILE...

Each session (a thread with one SMTP connection) sends messages drawn in turn
from FILE... (raw RFC 822), one recipient each, until --messages have been
sent in all; the body is sent as it is (smtplib dot-stuffs it). Prints one
line: messages sent, seconds, messages/s, and the time per message from MAIL
FROM to the server's reply after the data (p50, p99, in ms). Exit status 1 if
any message was refused.

Python's standard library only, so the benchmark needs nothing beyond what
scripts/setup installs.
"""

import argparse
import smtplib
import sys
import threading
import time


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--server", required=True, help="HOST:PORT")
    ap.add_argument("--sessions", type=int, default=20)
    ap.add_argument("--messages", type=int, default=1000)
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()

    bodies = []
    for f in args.files:
        with open(f, "rb") as fh:
            raw = fh.read()
        # Line ends as on the wire; smtplib wants bytes with CRLF.
        raw = raw.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
        bodies.append(raw)
    host, port = args.server.rsplit(":", 1)

    lock = threading.Lock()
    next_index = [0]
    latencies = []
    failures = [0]

    def take():
        with lock:
            i = next_index[0]
            if i >= args.messages:
                return None
            next_index[0] += 1
            return i

    def session():
        mine = []
        try:
            s = smtplib.SMTP(host, int(port), timeout=120)
            s.ehlo("load.example")
        except OSError as e:
            with lock:
                failures[0] += 1
            print("connect: %s" % e, file=sys.stderr)
            return
        while True:
            i = take()
            if i is None:
                break
            body = bodies[i % len(bodies)]
            t0 = time.monotonic()
            try:
                s.sendmail("load@example.org", ["rcpt%d@example.net" % i], body)
            except smtplib.SMTPException as e:
                with lock:
                    failures[0] += 1
                print("message %d: %s" % (i, e), file=sys.stderr)
                try:
                    s.rset()
                except smtplib.SMTPException:
                    break
                continue
            mine.append(time.monotonic() - t0)
        try:
            s.quit()
        except smtplib.SMTPException:
            pass
        with lock:
            latencies.extend(mine)

    start = time.monotonic()
    threads = [threading.Thread(target=session) for _ in range(args.sessions)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.monotonic() - start
    latencies.sort()

    def pct(p):
        if not latencies:
            return 0.0
        return 1000 * latencies[min(len(latencies) - 1, int(p * len(latencies)))]

    print("sent=%d seconds=%.2f messages_per_s=%.1f latency_ms p50=%.2f p99=%.2f "
          "failures=%d" % (len(latencies), elapsed, len(latencies) / elapsed,
                           pct(0.5), pct(0.99), failures[0]))
    return 1 if failures[0] else 0


if __name__ == "__main__":
    sys.exit(main())
