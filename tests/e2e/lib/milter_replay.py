#!/usr/bin/env python3
"""milter_replay.py SOCKET FILE...: replays recorded MTA byte streams
(milter_tap.py) into the milter at SOCKET (a unix socket path), one
connection per file, in order, and prints the milter's replies, one line per
packet: "FILE-NUMBER COMMAND-CHAR DATA" with the data's NULs shown as "|".
Each packet goes alone and the replies it gets are read before the next (a
short wait where the milter owes none), so a milter that reads one command
at a time (libmilter) and one that reads many (ours) see the same thing.
Values that differ between two runs by their nature are masked: the time in
first=..., the cluster id (a store's choice). Exit 1 when a connection could
not be made.
"""
import re
import socket
import struct
import sys


def frames(data):
    pos = 0
    while pos + 4 <= len(data):
        (n,) = struct.unpack(">I", data[pos:pos + 4])
        if n == 0 or pos + 4 + n > len(data):
            break
        yield data[pos + 4:pos + 4 + n]
        pos += 4 + n


class Conn:
    """One milter connection and its unread bytes."""

    def __init__(self, sock):
        self.sock = sock
        self.buf = b""

    def read_one(self, timeout):
        """The next reply packet, or None when none came within `timeout`
        seconds or the milter closed."""
        self.sock.settimeout(timeout)
        while True:
            if len(self.buf) >= 4:
                (n,) = struct.unpack(">I", self.buf[:4])
                if len(self.buf) >= 4 + n:
                    packet = self.buf[4:4 + n]
                    self.buf = self.buf[4 + n:]
                    return packet
            try:
                chunk = self.sock.recv(65536)
            except (socket.timeout, OSError):
                return None
            if not chunk:
                return None
            self.buf += chunk


# The no-reply bit (SMFIP_NR_*) of each command that is answered unless the
# milter took that bit; the others (macros, abort, quit) are never answered.
NO_REPLY = {b"C": 0x1000, b"H": 0x2000, b"M": 0x4000, b"R": 0x8000,
            b"T": 0x10000, b"U": 0x20000, b"L": 0x80, b"N": 0x40000,
            b"B": 0x80000}
FINAL = (b"a", b"c", b"r", b"t", b"d", b"y")


def mask(text):
    text = re.sub(r"first=[^;|]*", "first=T", text)
    text = re.sub(r"cluster=[0-9a-f]+", "cluster=C", text)
    text = re.sub(r"cluster:[0-9a-f]+", "cluster:C", text)
    return text


def main():
    path = sys.argv[1]
    status = 0
    for k, name in enumerate(sys.argv[2:], 1):
        data = open(name, "rb").read()
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.connect(path)
        except OSError as e:
            print("%d connect failed: %s" % (k, e))
            status = 1
            continue
        conn = Conn(sock)
        no_reply = 0
        replies = []
        for packet in frames(data):
            sock.sendall(struct.pack(">I", len(packet)) + packet)
            cmd = packet[:1]
            if cmd == b"O":
                r = conn.read_one(10.0)
                if r is None:
                    replies.append(b"-no OPTNEG reply")
                    break
                replies.append(r)
                if len(r) >= 13:
                    no_reply = struct.unpack(">I", r[9:13])[0]
            elif cmd == b"E":
                # Modifications first, then the final reply.
                while True:
                    r = conn.read_one(30.0)
                    if r is None:
                        replies.append(b"-no end-of-message reply")
                        break
                    replies.append(r)
                    if r[:1] in FINAL:
                        break
            elif cmd in NO_REPLY and not no_reply & NO_REPLY[cmd]:
                r = conn.read_one(10.0)
                replies.append(r if r is not None else b"-no reply to " + cmd)
        sock.close()
        for r in replies:
            if r[:1] == b"O" and len(r) >= 13:
                text = "version=%d actions=0x%x protocol=0x%x" % struct.unpack(
                    ">III", r[1:13])
            else:
                text = r[1:].decode("latin-1").replace("\0", "|")
            print("%d %s %s" % (k, r[:1].decode("latin-1"), mask(text)))
    sys.exit(status)


if __name__ == "__main__":
    main()
