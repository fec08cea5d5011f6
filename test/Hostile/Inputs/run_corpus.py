#!/usr/bin/python3
"""Runs the hostile-model corpus gen_corpus.py wrote and classifies each case.

    run_corpus.py CORPUS_DIR --shardc PATH [--ratchet FILE] [--update]
                  [--jobs 2] [--filter REGEX] [--timeout 60] [--report FILE]
                  [--results FILE] [--keep] [-v]

Each case runs in a scratch copy of its folder (under $TMPDIR), so a run never
changes the corpus and can be repeated.

Outcomes of one case:
  error-ok   a non-zero exit whose stderr is exactly one non-empty line that
             starts with "shardc: error: " (or "<exe>: error: " for a run of
             the executable) and names the file (or flag) at fault; no signal,
             no stack dump, no sanitizer report
  match-ok   it compiled and ran, and every output matches ONNX Runtime (run
             in a subprocess) or the case's numpy reference: same shape, same
             NaN positions, the same infinities, the rest within rtol/atol
  failures   crash (a signal), hang (past the timeout), bad-error (an error
             that is not one clear line), accepted-should-refuse (a case that
             must be refused compiled or ran; for external data that escapes
             its folder this is a security failure), refused-should-compile,
             late-error (compiled but the executable failed), wrong-answer,
             wrote-outside (the run wrote a file outside its output folder)

It prints each failure, the counts per class and "N passed, M failed". With
--ratchet FILE ({"class": passing cases}) it exits non-zero only if a class
passes fewer cases than FILE records; --update rewrites FILE with the counts
of this run. Without --ratchet it exits non-zero if any case failed.
"""
import argparse
import concurrent.futures
import json
import os
import re
import resource
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time

import numpy as np

COMPILE_TIMEOUT = 60
RUN_TIMEOUT = 20
ORT_TIMEOUT = 120
MEM_LIMIT = 6 << 30     # address space of every child (shardc, the host compiler, the executable)
FILE_LIMIT = 1 << 30    # largest file a child may write
BAD_MARKERS = ("Stack dump", "PLEASE submit a bug report", "AddressSanitizer", "LeakSanitizer",
               "UndefinedBehaviorSanitizer", "runtime error:", "ThreadSanitizer", "MemorySanitizer",
               "terminate called", "Aborted", "Segmentation fault", "core dumped", "Assertion")


def limits():
    os.setsid()
    resource.setrlimit(resource.RLIMIT_AS, (MEM_LIMIT, MEM_LIMIT))
    resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_LIMIT, FILE_LIMIT))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


class Result:
    def __init__(self, rc, out, err, timed_out, secs):
        self.rc, self.out, self.err, self.timed_out, self.secs = rc, out, err, timed_out, secs


def run(cmd, cwd, timeout, env=None):
    t0 = time.time()
    p = subprocess.Popen(cmd, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         preexec_fn=limits, env=env)
    try:
        out, err = p.communicate(timeout=timeout)
        timed_out = False
    except subprocess.TimeoutExpired:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except OSError:
            pass
        out, err = p.communicate()
        timed_out = True
    return Result(p.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"), timed_out,
                  time.time() - t0)


def head(text, n=300):
    lines = [l for l in text.strip().splitlines() if l.strip()]
    s = lines[0] if lines else "(empty stderr)"
    s = s if len(s) <= n else s[:n] + "..."
    if len(lines) > 1:
        s += "  [+%d more lines]" % (len(lines) - 1)
    return s


def judge_error(res, prefixes, names):
    """None if res is a clean one-line error, else (kind, reason)."""
    if res.timed_out:
        return ("hang", "no answer within %ds" % int(res.secs))
    if res.rc is not None and (res.rc < 0 or 128 < res.rc < 160):
        sig = -res.rc if res.rc < 0 else res.rc - 128
        try:
            sname = signal.Signals(sig).name
        except ValueError:
            sname = str(sig)
        return ("crash", "%s: %s" % (sname, head(res.err)))
    err = res.err.strip()
    if any(m in res.err for m in BAD_MARKERS):
        return ("bad-error", head(err))
    if not err:
        return ("bad-error", "exit %d with an empty stderr" % res.rc)
    if "\n" in err:
        return ("bad-error", "%d lines: %s" % (len(err.splitlines()), head(err)))
    if not any(err.startswith(p) for p in prefixes):
        return ("bad-error", "not '%s...': %s" % (prefixes[0], head(err)))
    if names and not any(n in err for n in names):
        return ("bad-error", "does not name %s: %s" % (" or ".join(repr(n) for n in names[:3]), head(err)))
    return None


def compare(got, want, rtol, atol):
    """None if equal enough, else a reason."""
    if got.shape != want.shape:
        return "shape %s, expected %s" % (list(got.shape), list(want.shape))
    if want.dtype.kind in "fc" or got.dtype.kind in "fc":
        if got.dtype.kind not in "fc" or want.dtype.kind not in "fc":
            return "dtype %s, expected %s" % (got.dtype, want.dtype)
        g, w = got.astype(np.float64), want.astype(np.float64)
        gn, wn = np.isnan(g), np.isnan(w)
        if (gn != wn).any():
            i = np.argwhere(gn != wn)[0]
            return "NaN mismatch at %s: got %r, expected %r" % (tuple(i), g[tuple(i)], w[tuple(i)])
        gi, wi = np.isinf(g), np.isinf(w)
        bad = (gi | wi) & ~(gn | wn) & (g != w)
        if bad.any():
            i = np.argwhere(bad)[0]
            return "Inf mismatch at %s: got %r, expected %r" % (tuple(i), g[tuple(i)], w[tuple(i)])
        fin = ~(gn | wn | gi | wi)
        with np.errstate(invalid="ignore"):
            close = np.abs(g - w) <= atol + rtol * np.abs(w)
        bad = fin & ~close
        if bad.any():
            i = np.argwhere(bad)[0]
            return "%d values differ, first at %s: got %r, expected %r" % (bad.sum(), tuple(i), g[tuple(i)],
                                                                         w[tuple(i)])
        return None
    if got.dtype.kind != want.dtype.kind or got.dtype.itemsize != want.dtype.itemsize:
        if not (got.dtype.kind in "b" and want.dtype.kind in "b"):
            return "dtype %s, expected %s" % (got.dtype, want.dtype)
    if not np.array_equal(got, want):
        bad = got != want
        i = np.argwhere(bad)[0] if bad.ndim else ()
        return "%d values differ, first at %s: got %r, expected %r" % (
            np.sum(bad), tuple(i), got[tuple(i)], want[tuple(i)])
    return None


ORT_SCRIPT = r"""
import json, sys, os
import numpy as np
import onnxruntime as ort
spec = json.loads(sys.argv[1])
so = ort.SessionOptions()
so.log_severity_level = 3
so.intra_op_num_threads = 1
so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL  # the ops as ONNX defines them, unfused
s = ort.InferenceSession(spec["model"], so, providers=["CPUExecutionProvider"])
feeds = {k: np.load(v) for k, v in spec["inputs"].items()}
outs = s.run(None, feeds)
os.makedirs(spec["out"], exist_ok=True)
names = [o.name for o in s.get_outputs()]
for i, (n, v) in enumerate(zip(names, outs)):
    np.save(os.path.join(spec["out"], "%d.npy" % i), np.asarray(v))
json.dump(names, open(os.path.join(spec["out"], "names.json"), "w"))
"""


def sanitize(name):
    return re.sub(r"[^A-Za-z0-9._-]", "_", name)


def reference(case, d, env):
    """{output name: array} or a reason string."""
    if "expected" in case:
        return {k: np.load(os.path.join(d, v)) for k, v in case["expected"].items()}
    ref_dir = os.path.join(d, "_ref")
    spec = {"model": case["model"], "inputs": dict(case["run"]["inputs"], **case.get("ref_inputs", {})),
            "out": ref_dir}
    r = run([sys.executable, "-c", ORT_SCRIPT, json.dumps(spec)], d, ORT_TIMEOUT, env)
    if r.rc != 0:
        return "ONNX Runtime could not run the model: %s" % head(r.err.strip().splitlines()[-1] if r.err.strip()
                                                                 else "rc %s" % r.rc)
    names = json.load(open(os.path.join(ref_dir, "names.json")))
    return {n: np.load(os.path.join(ref_dir, "%d.npy" % i)) for i, n in enumerate(names)}


def prepare(steps, d):
    for st in steps:
        op, path = st[0], os.path.join(d, st[1]) if len(st) > 1 else None
        if op == "truncate":
            size = os.path.getsize(path)
            n = int(size * st[2]) if isinstance(st[2], float) else int(st[2])
            with open(path, "r+b") as f:
                f.truncate(n)
        elif op == "flip":
            size = os.path.getsize(path)
            off = st[2] if st[2] >= 0 else size + st[2]
            with open(path, "r+b") as f:
                f.seek(off)
                b = f.read(1)
                f.seek(off)
                f.write(bytes([b[0] ^ 0x5A]))
        elif op == "append":
            with open(path, "ab") as f:
                f.write(bytes(range(256)) * (st[2] // 256))
        elif op == "remove":
            os.remove(path)
        elif op == "mkdir":
            os.makedirs(path)
        elif op == "mkfifo":
            os.mkfifo(path)
        elif op == "symlink":
            os.symlink(st[1], os.path.join(d, st[2]))
        elif op == "copy":
            shutil.copy(path, os.path.join(d, st[2]))
        elif op == "randomize":
            size = os.path.getsize(path)
            with open(path, "wb") as f:
                f.write(np.random.default_rng(7).integers(0, 256, size, dtype=np.uint8).tobytes())
        else:
            raise ValueError("unknown prepare step %r" % (st,))


def copy_case(src, dst):
    """Copies a case folder keeping symlinks as symlinks and FIFOs as FIFOs (a
    copy would block on them), so that every run starts from the generated
    state and the corpus itself is never modified."""
    os.makedirs(dst)
    for name in os.listdir(src):
        s, t = os.path.join(src, name), os.path.join(dst, name)
        if os.path.islink(s):
            os.symlink(os.readlink(s), t)
        elif stat.S_ISFIFO(os.lstat(s).st_mode):
            os.mkfifo(t)
        elif os.path.isdir(s):
            copy_case(s, t)
        else:
            shutil.copy2(s, t)


def run_case(case, corpus, shardc, timeout, work):
    """(outcome, detail): outcome is error-ok, match-ok, or a failure kind."""
    d = os.path.join(work, case["name"])
    copy_case(os.path.join(corpus, case["name"]), d)
    env = dict(os.environ, OMP_NUM_THREADS="1", ASAN_OPTIONS="detect_leaks=0")
    expect = case["expect"]
    for pre in case.get("precompile", []):
        run([shardc] + pre, d, timeout, env)
    c = run([shardc] + case["args"], d, timeout, env)
    if c.rc != 0 or c.timed_out:
        bad = judge_error(c, ["shardc: error: "], case["names"])
        if bad:
            return bad
        if expect in ("refuse", "refuse-or-match", "refuse-or-run"):
            why = case.get("why")
            if why and not any(w in c.err for w in why):
                return ("bad-error", "refused, but the line names none of %s: %s" % (
                    ", ".join(repr(w) for w in why[:3]), head(c.err)))
            return ("error-ok", head(c.err))
        return ("refused-should-compile", head(c.err))
    if c.err.strip() and any(m in c.err for m in BAD_MARKERS):
        return ("bad-error", "exit 0 but stderr: " + head(c.err))
    if expect == "refuse":
        return ("accepted-should-refuse", "compiled (exit 0)" + (": " + head(c.err) if c.err.strip() else ""))
    # run the executable
    runspec = case.get("run")
    if runspec is None:
        return ("match-ok", "compiled")
    exe = os.path.join(d, case["exe"])
    if not os.path.isfile(exe):
        return ("late-error", "shardc exited 0 but wrote no executable %s" % case["exe"])
    try:
        prepare(runspec.get("prepare", []), d)
    except OSError as e:
        return ("late-error", "preparing the run failed: %s" % e)
    out_dir = os.path.join(d, "_out")
    shutil.rmtree(out_dir, ignore_errors=True)
    cmd = [exe] + list(runspec.get("args", []))
    for k, v in runspec.get("inputs", {}).items():
        cmd += ["--input", "%s=%s" % (k, v)]
    if "--output" not in cmd:
        cmd += ["--output", "_out"]
    r = run(cmd, d, RUN_TIMEOUT, env)
    for p in runspec.get("must_not_exist", []):
        if os.path.lexists(os.path.join(d, "_out", p)) or os.path.lexists(os.path.join(d, p)):
            return ("wrote-outside", "the run created '%s' outside its output folder" % p)
    exe_name = os.path.basename(case["exe"])
    prefixes = [exe_name + ": error: ", case["exe"] + ": error: ", exe + ": error: "]
    if r.rc != 0 or r.timed_out:
        bad = judge_error(r, prefixes, runspec.get("names"))
        if bad:
            return (bad[0], "run: " + bad[1])
        if expect in ("run-refuse", "run-refuse-or-match", "refuse-or-run"):
            return ("error-ok", "run: " + head(r.err))
        return ("late-error", "run: " + head(r.err))
    if r.err.strip() and any(m in r.err for m in BAD_MARKERS):
        return ("bad-error", "run exit 0 but stderr: " + head(r.err))
    if expect == "run-refuse":
        return ("accepted-should-refuse", "the executable ran (exit 0)")
    if expect == "refuse-or-run":
        return ("match-ok", "ran (implementation-defined answer)")
    ref = reference(case, d, env)
    if isinstance(ref, str):
        return ("wrong-answer", ref)
    for name, want in ref.items():
        p = os.path.join(out_dir, sanitize(name) + ".npy")
        if not os.path.exists(p):
            return ("wrong-answer", "no output file for '%s'" % name)
        try:
            got = np.load(p, allow_pickle=False)
        except Exception as e:  # noqa: BLE001 - any unreadable output is a wrong answer
            return ("wrong-answer", "output '%s' unreadable: %s" % (name, e))
        why = compare(got, want, case.get("rtol", 1e-4), case.get("atol", 1e-5))
        if why:
            return ("wrong-answer", "output '%s': %s" % (name, why))
    return ("match-ok", "%d outputs match" % len(ref))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("corpus")
    ap.add_argument("--shardc", required=True)
    ap.add_argument("--ratchet")
    ap.add_argument("--update", action="store_true", help="rewrite --ratchet with this run's counts")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--filter", help="only cases whose name matches this regex")
    ap.add_argument("--timeout", type=int, default=COMPILE_TIMEOUT, help="seconds per shardc run")
    ap.add_argument("--report", help="also write the failures to this file")
    ap.add_argument("--results", help="write every case's outcome, detail and seconds (JSON) to this file")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every case")
    ap.add_argument("--keep", action="store_true", help="keep the scratch copies the cases ran in")
    args = ap.parse_args()
    corpus = os.path.abspath(args.corpus)
    shardc = os.path.abspath(args.shardc)
    if not (os.path.isfile(shardc) and os.access(shardc, os.X_OK)):
        print("error: %s is not an executable (is it being rebuilt?)" % shardc)
        return 2
    manifest = json.load(open(os.path.join(corpus, "manifest.json")))
    cases = [c for c in manifest["cases"] if not args.filter or re.search(args.filter, c["name"])]
    classes = list(manifest["classes"])
    t0 = time.time()
    results = {}
    work = tempfile.mkdtemp(prefix="shardc-hostile-")
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        def timed(c):
            t = time.time()
            try:
                r = run_case(c, corpus, shardc, args.timeout, work)
            except Exception as e:  # noqa: BLE001 - a runner bug must not hide the other cases
                r = ("runner-error", "%s: %s" % (type(e).__name__, e))
            return r, time.time() - t
        futs = {pool.submit(timed, c): c for c in cases}
        secs = {}
        for f in concurrent.futures.as_completed(futs):
            c = futs[f]
            results[c["name"]], secs[c["name"]] = f.result()
    if args.keep:
        print("scratch copies kept in %s" % work)
    else:
        shutil.rmtree(work, ignore_errors=True)
    if args.results:
        with open(args.results, "w") as f:
            json.dump([{"name": c["name"], "class": c["class"], "expect": c["expect"],
                        "outcome": results[c["name"]][0], "detail": results[c["name"]][1],
                        "seconds": round(secs[c["name"]], 2)} for c in cases], f, indent=1)
    passed = failed = 0
    per_class = {k: [0, 0] for k in classes}
    failures = []
    for c in cases:
        outcome, detail = results[c["name"]]
        ok = outcome in ("error-ok", "match-ok")
        per_class.setdefault(c["class"], [0, 0])
        per_class[c["class"]][1] += 1
        if ok:
            passed += 1
            per_class[c["class"]][0] += 1
            if args.verbose:
                print("ok    %-45s %-14s %-8s %5.1fs %s" % (c["name"], c["class"], outcome, secs[c["name"]],
                                                       detail))
        else:
            failed += 1
            failures.append((outcome, c, detail))
    kinds = ["crash", "hang", "wrote-outside", "accepted-should-refuse", "wrong-answer", "late-error", "bad-error",
             "refused-should-compile", "runner-error"]
    failures.sort(key=lambda x: (kinds.index(x[0]) if x[0] in kinds else 99, x[1]["class"], x[1]["name"]))
    lines = []
    for outcome, c, detail in failures:
        lines.append("FAIL %-23s %-14s %-45s %s" % (outcome, c["class"], c["name"], detail))
    for l in lines:
        print(l)
    if args.report:
        with open(args.report, "w") as f:
            f.write("\n".join(lines) + "\n")
    by_kind = {}
    for outcome, _, _ in failures:
        by_kind[outcome] = by_kind.get(outcome, 0) + 1
    print("failures by kind: " + (", ".join("%s %d" % kv for kv in sorted(by_kind.items())) or "none"))
    for k, (p, n) in per_class.items():
        if n:
            print("class %-14s %3d/%-3d passed" % (k, p, n))
    status = 0
    regressions = []
    if args.ratchet:
        recorded = {}
        if os.path.exists(args.ratchet):
            recorded = json.load(open(args.ratchet))
        for k, (p, n) in per_class.items():
            if not n:
                continue
            want = recorded.get(k, 0)
            if p < want:
                regressions.append("RATCHET: %s passes %d cases, fewer than the recorded %d" % (k, p, want))
                print(regressions[-1])
                status = 1
            else:
                print("ratchet: %s passes %d (recorded minimum %d)" % (k, p, want))
        runner_errors = sum(1 for o, _, _ in failures if o == "runner-error")
        if args.update and runner_errors:
            print("ratchet: NOT updated: %d cases could not be run (runner-error)" % runner_errors)
            status = 1
        elif args.update:
            with open(args.ratchet, "w") as f:
                json.dump({k: pn[0] for k, pn in per_class.items() if pn[1]}, f, indent=2, sort_keys=True)
                f.write("\n")
            print("ratchet: wrote %s" % args.ratchet)
            status = 0
    elif failed:
        status = 1
    print("time: %.0fs with %d workers" % (time.time() - t0, args.jobs))
    print("%d passed, %d failed" % (passed, failed))
    if status:  # stdout usually goes to FileCheck; lit shows a failing command's stderr
        sys.stderr.write("\n".join(lines + regressions + ["%d passed, %d failed" % (passed, failed)]) + "\n")
    return status


if __name__ == "__main__":
    sys.exit(main())
