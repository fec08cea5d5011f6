#!/usr/bin/env python3
"""The sharding-rule conformance run: every graph op with a sharding rule,
alone in a small graph, partitioned every legal way its operands can be
split, on 2 and 3 CPU ranks and on a 2 x 2 mesh, must give the one-rank
answer (the way the ONNX conformance run checks single ops).

  sharding-conformance.py [--shardc build/tools/shardc/shardc]
                          [--shardc-opt build/tools/shardc-opt/shardc-opt]
                          [--sample N] [--seed S] [--full] [--keep DIR] [-v]

For each case (an ONNX node with its inputs; scripts/sharding_cases.py) it
  1. writes the one-node ONNX model and compiles it for one rank (`shardc`),
  2. imports it (`shardc --emit=import`), and for each sharding of its
     inputs (every dim a mesh axis divides may be split over it; each axis
     once per tensor) puts a `dist.mesh` and `dist.shard` seeds in front of
     it, runs `shardc-opt --dist-propagate --dist-partition` and compiles the
     rank programs,
  3. runs both on the same inputs (negatives, ties, +-inf and NaN where the
     op is defined for them; sizes the degree does not divide) under
     `mpirun`, and compares: NaN and infinities at the same places, finite
     values within 1e-5 of the output's scale (float) or equal (integer).

Without --full a seeded sample runs: for every case and mesh one sharding
that splits a reduced dim (where a combiner must be right), one random
sharding of every other case, and --sample more (default 20). It prints
one line per op, a total "ops N, shardings T, pass P", and the factors each
rule declares "needs replication" (graph-print-sharding-rules), which is
where a reduction must not hide from its combiner. Exits 1 on a failure.
"""
import argparse
import itertools
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import npy_compare  # noqa: E402
import sharding_cases  # noqa: E402

MESHES = [
    ("tp2", ["tp"], [2]),
    ("tp3", ["tp"], [3]),
    ("2x2", ["a", "b"], [2, 2]),
]


def run(cmd, timeout=120, **kw):
    """The command's exit status and output; a command that cannot start or
    runs past `timeout` is a failure with that message."""
    try:
        return subprocess.run(cmd, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True,
                              timeout=timeout, **kw)
    except (OSError, subprocess.TimeoutExpired) as e:
        return subprocess.CompletedProcess(cmd, 1, stdout=str(e))


def dim_options(size, axes, sizes):
    """The ways one dim of `size` can be split: [] or axis lists whose
    product divides it."""
    opts = [()]
    for n in range(1, len(axes) + 1):
        for combo in itertools.permutations(range(len(axes)), n):
            prod = int(np.prod([sizes[i] for i in combo]))
            if size % prod == 0 and size >= prod:
                opts.append(tuple(axes[i] for i in combo))
    return opts


def tensor_shardings(shape, axes, sizes):
    """Every sharding of one tensor: per dim an option, each axis once."""
    out = []
    for combo in itertools.product(*[dim_options(d, axes, sizes) for d in shape]):
        used = [a for dim in combo for a in dim]
        if len(used) == len(set(used)):
            out.append(combo)
    return out


def sharding_text(mesh_axes_per_dim):
    dims = ", ".join("[" + ", ".join('"%s"' % a for a in d) + "]"
                     for d in mesh_axes_per_dim)
    return "#dist.sharding<@mesh, [%s]>" % dims


ARG = re.compile(r"%arg(\d+): (tensor<[^>]*>)")


def seeded_module(imported, mesh, shardings):
    """The imported module with a mesh and a dist.shard of each split
    argument in front of the body (later uses read the seed)."""
    name, axes, sizes = mesh
    lines = imported.split("\n")
    out, in_main = [], False
    for line in lines:
        if line.strip().startswith("func.func @main"):
            types = dict((int(i), t) for i, t in ARG.findall(line))
            out.append('  dist.mesh @mesh axes = [%s] shape = [%s]' % (
                ", ".join('"%s"' % a for a in axes),
                ", ".join(str(s) for s in sizes)))
            out.append(line)
            for i, s in enumerate(shardings):
                if any(s):
                    out.append("    %%seed%d = dist.shard %%arg%d : %s to %s" % (
                        i, i, types[i], sharding_text(s)))
            in_main = True
            continue
        if in_main:
            for i, s in enumerate(shardings):
                if any(s):
                    line = re.sub(r"%%arg%d\b" % i, "%%seed%d" % i, line)
            if line.strip() == "}":
                in_main = False
        out.append(line)
    return "\n".join(out)


def compare(got_dir, ref_dir, names):
    for n in names:
        diff = npy_compare.difference(np.load(os.path.join(got_dir, n + ".npy")),
                                      np.load(os.path.join(ref_dir, n + ".npy")),
                                      1e-5)
        if diff:
            return "%s: %s" % (n, diff)
    return None


def needs_replication(shardc_opt, mlir_path):
    """The rule's factors that need replication, from the remark of
    graph-print-sharding-rules on the case's op."""
    r = run([shardc_opt, mlir_path, "--graph-print-sharding-rules",
             "-o", os.devnull])
    rules = re.findall(r"sharding rule: (.*)", r.stdout)
    found = []
    for rule in rules:
        m = re.search(r"need_replication=\{([^}]*)\}", rule)
        if m and m.group(1).strip():
            found.append(rule.strip())
    return found, rules


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shardc", default="build/tools/shardc/shardc")
    ap.add_argument("--shardc-opt", default="build/tools/shardc-opt/shardc-opt")
    ap.add_argument("--sample", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--full", action="store_true")
    ap.add_argument("--keep", help="keep the work folder here")
    ap.add_argument("--case", action="append",
                    help="run only this case (repeatable)")
    ap.add_argument("-v", action="store_true")
    args = ap.parse_args()
    shardc, shardc_opt = args.shardc, args.shardc_opt
    work = args.keep or tempfile.mkdtemp(prefix="sharding-conformance-")
    os.makedirs(work, exist_ok=True)
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1",
               OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMP_NUM_THREADS="1")

    cases = [c for c in sharding_cases.cases()
             if not args.case or c.name in args.case]
    # Every (case, mesh, sharding) there is; then the sample.
    plan = []
    prepared = {}
    for case in cases:
        d = os.path.join(work, case.name)
        os.makedirs(d, exist_ok=True)
        model = os.path.join(d, "model.onnx")
        case.write(model)
        inputs = case.inputs(np.random.default_rng(args.seed))
        flags = []
        for n, v in inputs.items():
            np.save(os.path.join(d, n + ".npy"), v)
            flags += ["--input", "%s=%s" % (n, os.path.join(d, n + ".npy"))]
        prepared[case.name] = (d, model, flags)
        for mesh in MESHES:
            per_input = [tensor_shardings(s, mesh[1], mesh[2])
                         for s in case.shapes]
            for combo in itertools.product(*per_input):
                if not any(any(dim) for s in combo for dim in s):
                    continue  # nothing split: the one-rank program
                plan.append((case, mesh, combo))
    total = len(plan)
    if not args.full:
        rng = random.Random(args.seed)
        # Always one sharding per case and mesh that splits a reduced dim
        # (where a combiner must be right), one random sharding of every
        # other case, then a seeded sample of the rest.
        chosen, seen = [], set()
        for p in plan:
            key = (p[0].name, p[1][0])
            if p[0].reduced and key not in seen and any(
                    p[2][0][d] for d in p[0].reduced):
                seen.add(key)
                chosen.append(p)
        rest = [p for p in plan if p not in chosen]
        rng.shuffle(rest)
        for p in rest:
            if not p[0].reduced and p[0].name not in seen:
                seen.add(p[0].name)
                chosen.append(p)
        rest = [p for p in rest if p not in chosen]
        chosen += rest[:args.sample]
        plan = chosen

    failures = []
    per_op = {}
    replication = {}
    for case in cases:
        d, model, flags = prepared[case.name]
        r = run([shardc, model, "-o", os.path.join(d, "one")])
        if r.returncode:
            failures.append("%s: one rank does not compile: %s" % (
                case.name, r.stdout.strip().splitlines()[-1:]))
            continue
        r = run([os.path.join(d, "one")] + flags +
                ["--output", os.path.join(d, "one.out")], env=env)
        if r.returncode:
            failures.append("%s: one rank fails: %s" % (case.name, r.stdout.strip()))
            continue
        r = run([shardc, model, "--emit=import", "-o",
                 os.path.join(d, "imported.mlir")])
        if r.returncode:
            failures.append("%s: import: %s" % (case.name, r.stdout.strip()))
            continue
        replication[case.name] = needs_replication(
            shardc_opt, os.path.join(d, "imported.mlir"))[0]

    for i, (case, mesh, combo) in enumerate(plan):
        d, model, flags = prepared[case.name]
        if not os.path.exists(os.path.join(d, "one.out")):
            continue
        tag = "%s-%d" % (mesh[0], i)
        text = open(os.path.join(d, "imported.mlir")).read()
        seeded = os.path.join(d, tag + ".mlir")
        with open(seeded, "w") as f:
            f.write(seeded_module(text, mesh, combo))
        label = "%s on %s, inputs %s" % (case.name, mesh[0], "; ".join(
            sharding_text(s)[len("#dist.sharding<@mesh, "):-1] for s in combo))
        stats = per_op.setdefault(case.op, [0, 0])
        stats[0] += 1
        part = os.path.join(d, tag + ".part.mlir")
        r = run([shardc_opt, seeded, "--dist-propagate", "--dist-partition",
                 "-o", part])
        if r.returncode == 0:
            exe = os.path.join(d, tag)
            r = run([shardc, part, "-o", exe])
        if r.returncode:
            failures.append("%s: does not compile: %s" % (
                label, (r.stdout.strip().splitlines() or [""])[-1]))
            continue
        ranks = int(np.prod(mesh[2]))
        out = os.path.join(d, tag + ".out")
        r = run(["mpirun", "--oversubscribe", "-np", str(ranks), exe] + flags +
                ["--output", out], env=env)
        if r.returncode:
            failures.append("%s: run fails: %s" % (
                label, (r.stdout.strip().splitlines() or [""])[0]))
            continue
        diff = compare(out, os.path.join(d, "one.out"), case.outputs)
        if diff:
            failures.append("%s: %s" % (label, diff))
            continue
        stats[1] += 1
        if args.v:
            print("ok  ", label, flush=True)
        elif (i + 1) % 100 == 0:
            print("... %d of %d" % (i + 1, len(plan)), file=sys.stderr,
                  flush=True)

    for op in sorted(per_op):
        tried, passed = per_op[op]
        print("%-18s %4d shardings, %4d pass" % (op, tried, passed))
    tried = sum(v[0] for v in per_op.values())
    passed = sum(v[1] for v in per_op.values())
    print("ops %d, cases %d, shardings %d of %d, pass %d" % (
        len(per_op), len(cases), tried, total, passed))
    print("needs replication (the factors each rule keeps whole):")
    for name in sorted(replication):
        for rule in replication[name]:
            print("  %-22s %s" % (name, rule))
    for f in failures:
        print("FAIL", f)
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
