#!/usr/bin/env python3
"""milter_tap.py LISTEN TARGET OUTDIR: a recording relay between an MTA and a
milter, both unix sockets. Every connection the MTA opens is relayed to
TARGET both ways, unchanged; the bytes the MTA sent are written to
OUTDIR/conn-NNNN.bin (numbered in the order connections opened), so the
e2e run can replay what Postfix really sent into other milters
(milter_replay.py). Runs until killed. Nothing here interprets the protocol.
"""
import os
import socket
import sys
import threading


def pump(src, dst, record):
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            if record is not None:
                record.write(data)
                record.flush()
            dst.sendall(data)
    except OSError:
        pass
    finally:
        for s in (dst,):
            try:
                s.shutdown(socket.SHUT_WR)
            except OSError:
                pass


def serve(client, target, path):
    upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        upstream.connect(target)
    except OSError:
        client.close()
        return
    with open(path, "wb") as record:
        a = threading.Thread(target=pump, args=(client, upstream, record))
        b = threading.Thread(target=pump, args=(upstream, client, None))
        a.start()
        b.start()
        a.join()
        b.join()
    client.close()
    upstream.close()


def main():
    listen, target, outdir = sys.argv[1:4]
    os.makedirs(outdir, exist_ok=True)
    try:
        os.unlink(listen)
    except FileNotFoundError:
        pass
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(listen)
    os.chmod(listen, 0o666)
    server.listen(128)
    n = 0
    while True:
        client, _ = server.accept()
        n += 1
        path = os.path.join(outdir, "conn-%04d.bin" % n)
        threading.Thread(target=serve, args=(client, target, path),
                         daemon=True).start()


if __name__ == "__main__":
    main()
