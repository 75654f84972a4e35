#!/usr/bin/python3
"""Writes a flame graph (a static SVG) from `perf script` output with call
chains, for the profiles the docs show (docs/pipeline.md, "Where the time
goes"). Debian 12 packages neither Brendan Gregg's FlameGraph scripts nor the
d3 template perf's own `perf script report flamegraph` needs, hence this.

  perf record --call-graph dwarf,32768 -F 250 -o /tmp/cb.data \\
      build/bin/check_bench --rounds 1
  perf script -i /tmp/cb.data | bench/flamegraph.py \\
      --title "check_bench" > docs/flamegraph-check.svg

Each sample's stack is folded (callers first); a frame is its symbol without
the offset, or its library's name when perf has no symbol; frames under
--min-share of all samples are left out (their time stays in the parent).
Width is share of samples; hovering a frame shows its name and share.
"""
import argparse
import hashlib
import html
import os
import re
import sys

FRAME = re.compile(r"^\s*[0-9a-f]+\s+(.*?)\s+\((.*)\)\s*$")


def frame_name(text, dso):
    if text == "[unknown]":
        return "[" + os.path.basename(dso) + "]"
    return re.sub(r"\+0x[0-9a-f]+$", "", text)


def read_stacks(lines):
    """Yields each sample's frames, outermost first."""
    frames = []
    in_sample = False
    for line in lines:
        if not line.strip():
            if frames:
                yield list(reversed(frames))
            frames, in_sample = [], False
            continue
        if not line.startswith(("\t", " ")):
            in_sample = True  # the sample's header line
            continue
        m = FRAME.match(line)
        if in_sample and m:
            frames.append(frame_name(m.group(1), m.group(2)))
    if frames:
        yield list(reversed(frames))


class Node:
    __slots__ = ("name", "count", "children")

    def __init__(self, name):
        self.name, self.count, self.children = name, 0, {}


def fold(stacks):
    root = Node("all")
    for stack in stacks:
        root.count += 1
        node = root
        for name in stack:
            node = node.children.setdefault(name, Node(name))
            node.count += 1
    return root


def colour(name):
    if name.startswith("[kernel") or "kernel" in name:
        return "rgb(230,150,60)"
    h = int(hashlib.md5(name.encode()).hexdigest()[:4], 16) / 65535.0
    return "rgb(%d,%d,%d)" % (205 + 50 * h, 80 + 120 * (1 - h), 55 * h)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--title", default="flame graph")
    ap.add_argument("--min-share", type=float, default=0.002,
                    help="leave out frames under this share of samples")
    ap.add_argument("--width", type=int, default=1200)
    args = ap.parse_args()

    root = fold(read_stacks(sys.stdin))
    if root.count == 0:
        sys.exit("flamegraph.py: no samples with call chains on stdin")
    row, pad, width = 16, 30, args.width
    rects = []
    depth_max = 0

    def walk(node, x, depth):
        nonlocal depth_max
        depth_max = max(depth_max, depth)
        rects.append((node, x, depth))
        for child in sorted(node.children.values(), key=lambda c: c.name):
            if child.count / root.count >= args.min_share:
                walk(child, x, depth + 1)
            x += child.count

    walk(root, 0, 0)
    height = (depth_max + 1) * row + 2 * pad
    scale = (width - 20) / root.count
    out = [
        '<?xml version="1.0" standalone="no"?>',
        '<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
        'font-family="Verdana,sans-serif" font-size="11">' % (width, height),
        '<rect width="100%" height="100%" fill="#f8f8f8"/>',
        '<text x="%d" y="20" text-anchor="middle" font-size="15">%s (%d '
        'samples)</text>' % (width // 2, html.escape(args.title), root.count),
    ]
    for node, x, depth in rects:
        w = node.count * scale
        px = 10 + x * scale
        py = height - pad - (depth + 1) * row
        share = 100.0 * node.count / root.count
        label = "%s (%.2f%%)" % (node.name, share)
        out.append('<g><title>%s</title><rect x="%.1f" y="%d" width="%.1f" '
                   'height="%d" fill="%s" stroke="#f8f8f8" stroke-width="0.5"/>'
                   % (html.escape(label), px, py, w, row - 1,
                      colour(node.name)))
        chars = int(w / 6.5)
        if chars >= 3:
            text = node.name if len(node.name) <= chars else \
                node.name[:chars - 2] + ".."
            out.append('<text x="%.1f" y="%d">%s</text>'
                       % (px + 3, py + row - 4, html.escape(text)))
        out.append("</g>")
    out.append("</svg>")
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
