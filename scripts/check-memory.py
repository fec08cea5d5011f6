#!/usr/bin/env python3
"""Checks a partitioned executable's memory per rank three ways.

  check-memory.py EXE PLAN.txt [--weights FILE] [--single EXE1]

EXE --info gives each rank's arena and weights bytes as the embedded plan
records them; FILE (default EXE.weights) is the weights file the compiler
wrote, whose section table gives each rank's section size; PLAN.txt is
`shardc --emit=plan` for the same model and flags, whose per-rank lines give
the report's figures. Prints one line per rank and 'memory: ok' when, for
every rank, the section holds exactly the plan's weights bytes and the
report shows both numbers (to its rounding). With --single, EXE1 is the
same model compiled for one rank: each rank's weights are printed as a
multiple of an even split of its weights (weights / N; replicated norms and
biases make it a little over 1).
"""
import re
import struct
import subprocess
import sys


def human(n):
    """The report's byte format (bytesText in tools/shardc/PlanReport.cpp)."""
    if n >= 1 << 30:
        return "%.2f GiB" % (n / float(1 << 30))
    if n >= 1 << 20:
        return "%.2f MiB" % (n / float(1 << 20))
    if n >= 1 << 10:
        return "%.1f KiB" % (n / float(1 << 10))
    return "%d B" % n


def sections(path):
    with open(path, "rb") as f:
        head = f.read(64)
        if head[:8] != b"SHRDWGTS":
            sys.exit("check-memory: %s: not a shardc weights file" % path)
        version, world = struct.unpack_from("<II", head, 8)
        if version != 3:
            sys.exit("check-memory: %s: weights version %d, this script reads 3"
                     % (path, version))
        table_offset = struct.unpack_from("<Q", head, 32)[0]
        f.seek(table_offset)
        table = f.read(48 * world)  # format v3: 48-byte entries
    return [struct.unpack_from("<QQ", table, 48 * r)[1] for r in range(world)]


def main():
    args = sys.argv[1:]
    def option(name):
        if name not in args:
            return None
        i = args.index(name)
        value = args[i + 1]
        del args[i:i + 2]
        return value
    weights = option("--weights")
    single = option("--single")
    exe, plan_txt = args
    weights = weights or exe + ".weights"
    info = subprocess.run([exe, "--info"], capture_output=True, text=True,
                          check=True).stdout
    planned = {}
    for m in re.finditer(r"rank (\d+): arena (\d+) bytes, weights (\d+) bytes", info):
        planned[int(m.group(1))] = (int(m.group(2)), int(m.group(3)))
    report = {}
    with open(plan_txt) as f:
        # A program serving several ranks (a merged one) is reported once.
        for m in re.finditer(r"\(ranks? ([\d ]+)\): weights ([\d.]+ \w+), "
                             r"arena ([\d.]+ \w+)", f.read()):
            for r in m.group(1).split():
                report[int(r)] = (m.group(2), m.group(3))
    sizes = sections(weights)
    ok = len(sizes) == len(planned) == len(report) and len(sizes) > 0
    whole = sum(sections(single + ".weights")) if single else 0
    for r, size in enumerate(sizes):
        arena, w = planned.get(r, (None, None))
        rep = report.get(r, (None, None))
        line_ok = (w == size and arena is not None and
                   rep == (human(size), human(arena)))
        ok &= line_ok
        split = ("; %.3f x weights/N" % (size / (whole / len(sizes)))
                 if whole else "")
        print("rank %d: section %d bytes, plan weights %s bytes, arena %s bytes; "
              "report: weights %s, arena %s%s%s" %
              (r, size, w, arena, rep[0], rep[1], split,
               "" if line_ok else "  MISMATCH"))
    print("memory: " + ("ok" if ok else "MISMATCH"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
