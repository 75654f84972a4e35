#!/usr/bin/env python3
"""tests/e2e/lib/ar_milter.py: a tiny authentication milter for the end-to-end tests.

It stands in for the site's own DKIM/SPF milter (OpenDKIM, OpenDMARC, rspamd)
in front of mailwave-milter: it speaks the Sendmail milter protocol (version 6)
itself over a unix socket, with nothing but the Python standard library, and
at the end of each message inserts

    Authentication-Results: <authserv_id>; <results>

at index 0 with SMFIR_INSHEADER, as OpenDKIM and OpenDMARC do. Every other
step is answered "continue".

    ar_milter.py --socket PATH [--config FILE] [--record FILE] [--name NAME]

--config FILE: JSON, read again at each end of message (a test may change it
between messages):

    {"authserv_id": "mx.e2e.test",
     "senders": {"news@shop.example": "dkim=pass header.d=shop.example",
                 "@lists.example": "spf=pass smtp.mailfrom=lists.example"},
     "marker": "X-Test-Auth"}

  "senders" maps an envelope sender (lower case), or "@domain" for any sender
  of that domain, to the results to add, or to {"authserv_id": ..., "results":
  ...} for a field with another authserv-id; "marker" names a header whose value,
  when a message carries it, is the results to add instead (for a test that
  wants per-message results). Neither matches: nothing is added. Without
  --config the milter adds nothing.

--record FILE: appends one JSON line per message with what this milter was
shown: {"name", "queue_id", "sender", "rcpts", "client", "headers": [[name,
value], ...]} (headers in the order the MTA sent them). A second copy in
record mode placed after another milter tells whether the MTA shows a later
milter the headers an earlier one added (docs/milter.md, "With an
authentication milter").

It logs one line per action on stderr. SIGTERM or SIGINT: it stops, removes
its socket and exits 0. The socket is made with the process' umask (the tests
use 007 in a setgid-postfix directory).
"""

import argparse
import json
import os
import signal
import socketserver
import struct
import sys
import threading

# Commands from the MTA.
SMFIC_ABORT = b"A"
SMFIC_BODY = b"B"
SMFIC_CONNECT = b"C"
SMFIC_MACRO = b"D"
SMFIC_BODYEOB = b"E"
SMFIC_HELO = b"H"
SMFIC_QUIT_NC = b"K"
SMFIC_HEADER = b"L"
SMFIC_MAIL = b"M"
SMFIC_EOH = b"N"
SMFIC_OPTNEG = b"O"
SMFIC_QUIT = b"Q"
SMFIC_RCPT = b"R"
SMFIC_DATA = b"T"
SMFIC_UNKNOWN = b"U"

# Replies.
SMFIR_CONTINUE = b"c"
SMFIR_INSHEADER = b"i"
SMFIR_OPTNEG = b"O"

SMFIF_ADDHDRS = 0x01
MILTER_VERSION = 6
MAX_PACKET = 64 * 1024 * 1024

_log_lock = threading.Lock()


def log(name, line):
    with _log_lock:
        sys.stderr.write("%s: %s\n" % (name, line))
        sys.stderr.flush()


def cstrings(data):
    """The NUL-terminated strings of a packet's data."""
    parts = data.split(b"\0")
    if parts and parts[-1] == b"":
        parts.pop()
    return [p.decode("utf-8", "replace") for p in parts]


def unbracket(address):
    address = address.strip()
    if len(address) >= 2 and address[0] == "<" and address[-1] == ">":
        address = address[1:-1]
    return address


class Milter(socketserver.BaseRequestHandler):
    """One MTA connection: sequential packets, one message at a time."""

    def setup(self):
        self.reset_message()
        self.macros = {}
        self.client = ""

    def reset_message(self):
        self.sender = ""
        self.rcpts = []
        self.headers = []

    def read_exact(self, n):
        buf = b""
        while len(buf) < n:
            chunk = self.request.recv(n - len(buf))
            if not chunk:
                return None
            buf += chunk
        return buf

    def send(self, code, data=b""):
        self.request.sendall(struct.pack("!I", len(data) + 1) + code + data)

    def handle(self):
        name = self.server.name
        while True:
            head = self.read_exact(4)
            if head is None:
                return
            (length,) = struct.unpack("!I", head)
            if length < 1 or length > MAX_PACKET:
                log(name, "bad packet length %d; closing" % length)
                return
            packet = self.read_exact(length)
            if packet is None:
                return
            cmd, data = packet[:1], packet[1:]
            if cmd == SMFIC_OPTNEG:
                # Version 6; add headers only; every step sent, each answered.
                actions = SMFIF_ADDHDRS if self.server.config_path else 0
                self.send(SMFIR_OPTNEG, struct.pack("!III", MILTER_VERSION, actions, 0))
            elif cmd == SMFIC_MACRO:
                # No reply: cmdcode, then name/value pairs.
                values = cstrings(data[1:])
                for i in range(0, len(values) - 1, 2):
                    self.macros[values[i]] = values[i + 1]
            elif cmd == SMFIC_CONNECT:
                # hostname \0, family, port (2 bytes), address \0
                host, _, rest = data.partition(b"\0")
                addr = rest[3:].rstrip(b"\0").decode("ascii", "replace") if len(rest) > 3 else ""
                self.client = "%s[%s]" % (host.decode("ascii", "replace"), addr)
                self.send(SMFIR_CONTINUE)
            elif cmd == SMFIC_MAIL:
                self.reset_message()
                args = cstrings(data)
                self.sender = unbracket(args[0]) if args else ""
                self.send(SMFIR_CONTINUE)
            elif cmd == SMFIC_RCPT:
                args = cstrings(data)
                if args:
                    self.rcpts.append(unbracket(args[0]))
                self.send(SMFIR_CONTINUE)
            elif cmd == SMFIC_HEADER:
                fields = cstrings(data)
                while len(fields) < 2:
                    fields.append("")
                self.headers.append([fields[0], fields[1]])
                self.send(SMFIR_CONTINUE)
            elif cmd == SMFIC_BODYEOB:
                self.end_of_message()
                self.reset_message()
                self.send(SMFIR_CONTINUE)
            elif cmd == SMFIC_ABORT:
                self.reset_message()  # no reply
            elif cmd == SMFIC_QUIT:
                return
            elif cmd == SMFIC_QUIT_NC:
                self.reset_message()
                self.macros = {}
            else:
                # HELO, DATA, EOH, BODY, UNKNOWN
                self.send(SMFIR_CONTINUE)

    def end_of_message(self):
        name = self.server.name
        qid = self.macros.get("i", "NOQUEUE")
        if self.server.record_path:
            line = json.dumps({"name": name, "queue_id": qid, "sender": self.sender,
                               "rcpts": self.rcpts, "client": self.client,
                               "headers": self.headers})
            with _log_lock:
                with open(self.server.record_path, "a", encoding="utf-8") as f:
                    f.write(line + "\n")
            log(name, "%s: recorded %d headers" % (qid, len(self.headers)))
        if not self.server.config_path:
            return
        try:
            with open(self.server.config_path, encoding="utf-8") as f:
                config = json.load(f)
        except (OSError, ValueError) as e:
            log(name, "%s: config %s: %s; nothing added" % (qid, self.server.config_path, e))
            return
        results = None
        marker = (config.get("marker") or "").lower()
        if marker:
            for hname, hvalue in self.headers:
                if hname.lower() == marker:
                    results = hvalue.strip()
                    break
        if results is None:
            senders = config.get("senders") or {}
            sender = self.sender.lower()
            results = senders.get(sender)
            if results is None and "@" in sender:
                results = senders.get("@" + sender.rsplit("@", 1)[1])
        authserv_id = config.get("authserv_id", "localhost")
        if isinstance(results, dict):
            authserv_id = results.get("authserv_id", authserv_id)
            results = results.get("results")
        if not results:
            log(name, "%s: no results for <%s>" % (qid, self.sender))
            return
        value = "%s; %s" % (authserv_id, results)
        self.send(SMFIR_INSHEADER, struct.pack("!I", 0) + b"Authentication-Results\0" +
                  value.encode("utf-8") + b"\0")
        log(name, "%s: inserted Authentication-Results: %s" % (qid, value))


class Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--socket", required=True, help="unix socket path (or unix:PATH)")
    p.add_argument("--config", default="", help="JSON results configuration")
    p.add_argument("--record", default="", help="append the headers seen here, one JSON line a message")
    p.add_argument("--name", default="ar_milter", help="name in the log lines and records")
    args = p.parse_args()
    path = args.socket[5:] if args.socket.startswith("unix:") else args.socket
    if os.path.exists(path):
        os.unlink(path)
    server = Server(path, Milter)
    server.name = args.name
    server.config_path = args.config
    server.record_path = args.record

    def stop(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    log(args.name, "listening on unix:%s" % path)
    try:
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        try:
            os.unlink(path)
        except OSError:
            pass
    log(args.name, "stopped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
