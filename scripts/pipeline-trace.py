#!/usr/bin/env python3
"""Reads the Chrome trace a pipelined executable writes (--trace FILE) and
measures its pipeline bubble.

  pipeline-trace.py TRACE [--run K] [--skip N]

For run K of the trace (default: the last; one run is every rank's
micro-batches 0..M-1): per rank, busy time is the micro-batches' time minus
the time spent waiting in recv inside them; the span is from the first
micro-batch's start on any rank to the last one's end. The bubble of a rank
is 1 - busy / span; the reported bubble is their mean, next to the ideal
fill-and-drain figure (p-1)/(m+p-1) for p stages and m micro-batches.
With --skip N, the summary line is the median over runs N.. (warm runs of
--benchmark) instead. Prints one line per rank and a summary; exits 1 on a
malformed trace.
"""
import argparse
import json
import re
import sys


def fail(msg):
    print("pipeline-trace: " + msg, file=sys.stderr)
    sys.exit(1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("trace")
    ap.add_argument("--run", type=int, default=-1)
    ap.add_argument("--skip", type=int, default=None)
    args = ap.parse_args()
    try:
        with open(args.trace) as f:
            events = json.load(f)["traceEvents"]
    except (OSError, ValueError, KeyError) as e:
        fail("%s: %s" % (args.trace, e))
    names, stages = {}, {}
    runs = {}  # pid -> list of runs, each a list of (k, ts, dur, wait)
    comm = {}  # pid -> list of (ts, dur, name)
    for e in events:
        pid = e.get("pid")
        if e.get("ph") == "M" and e.get("name") == "process_name":
            names[pid] = e["args"]["name"]
            m = re.search(r"stage (\d+)", names[pid])
            stages[pid] = int(m.group(1)) if m else 0
        elif e.get("ph") == "X" and e.get("cat") == "compute":
            m = re.fullmatch(r"microbatch (\d+)", e.get("name", ""))
            if not m:
                fail("unexpected compute event %r" % e.get("name"))
            k = int(m.group(1))
            if k == 0:
                runs.setdefault(pid, []).append([])
            elif not runs.get(pid):
                fail("rank %s: micro-batch %d before micro-batch 0" % (pid, k))
            runs[pid][-1].append([k, e["ts"], e["dur"], 0.0])
        elif e.get("ph") == "X" and e.get("cat") == "comm":
            comm.setdefault(pid, []).append((e["ts"], e["dur"], e["name"]))
    if not runs:
        fail("no micro-batch events")
    counts = {len(r) for r in runs.values()}
    if len(counts) != 1:
        fail("ranks ran different numbers of runs: %s" % sorted(counts))
    mbs = {len(r[args.run]) for r in runs.values()}
    if len(mbs) != 1:
        fail("ranks ran different numbers of micro-batches: %s" % sorted(mbs))
    m = mbs.pop()
    p = len(set(stages.get(pid, 0) for pid in runs))
    nruns = counts.pop()

    def measure(run, quiet):
        # Waiting in recv inside each micro-batch.
        for pid, rs in runs.items():
            for mb in rs[run]:
                ts, end = mb[1], mb[1] + mb[2]
                mb[3] = sum(d for (t, d, n) in comm.get(pid, [])
                            if n == "recv" and t >= ts and t + d <= end + 1e-3)
        start = min(mb[1] for rs in runs.values() for mb in rs[run])
        end = max(mb[1] + mb[2] for rs in runs.values() for mb in rs[run])
        span = end - start
        bubbles = []
        for pid in sorted(runs):
            mbs_ = runs[pid][run]
            busy = sum(mb[2] - mb[3] for mb in mbs_)
            bubbles.append(1 - busy / span if span > 0 else 0.0)
            if not quiet:
                print("%s: %d micro-batches, busy %.3f ms of %.3f ms, "
                      "bubble %.3f" % (names.get(pid, "rank %s" % pid),
                                       len(mbs_), busy / 1e3, span / 1e3,
                                       bubbles[-1]))
        return sum(bubbles) / len(bubbles), span

    mean, span = measure(args.run, False)
    if args.skip is not None:
        if args.skip >= nruns:
            fail("--skip %d leaves none of %d runs" % (args.skip, nruns))
        results = sorted(measure(r, True) for r in range(args.skip, nruns))
        mean, span = results[len(results) // 2]
    ideal = (p - 1) / (m + p - 1)
    print("stages %d micro-batches %d runs %d: bubble %.3f, ideal "
          "(p-1)/(m+p-1) %.3f, span %.3f ms"
          % (p, m, nruns, mean, ideal, span / 1e3))

if __name__ == "__main__":
    main()
