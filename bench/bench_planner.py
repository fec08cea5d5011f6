#!/usr/bin/env python3
"""Validates the planner's cost model on CPU ranks (issue 15, items 5-6).

  bench/bench_planner.py [--rounds 3] [--iterations 8] [--ranks 1,2,4]
                         [--models gpt,moe] [--json FILE] [--markdown FILE]

For two models, a GPT-2-style decoder (d=512, 8 heads, 4 layers, vocab
2048, ids 4x128, torch 1.13's export of test/Models/Inputs/export_models.py)
and a Mixtral-style mixture of experts (Hugging Face transformers 4.46 from
a config: d=256, 8 heads, 4 kv heads, 4 layers, 4 experts top-2, ff 512,
vocab 2048, ids 4x64; needs /tmp/moevenv, see
test/Models/Inputs/export_moe.py), and for each rank count N:

  1. `shardc --calibrate-cluster --devices=N` measures this machine as N
     ranks share it (N=1 uses the 2-rank spec);
  2. `shardc --devices=N --cluster=SPEC --emit=plan` lists every candidate
     plan with its predicted latency and memory per rank
     (OUT.plan.json);
  3. every candidate is compiled with --plan (one file per plan), its
     outputs checked against one rank's (1e-4 relative), and timed with the
     executables' --benchmark under mpirun -np N, one thread per rank,
     interleaved round by round (best p50 of the rounds);
  4. the memory per rank is read two ways: the program's own plan (arena +
     weights, the executable's --info) and the peak resident set of each
     rank (/usr/bin/time's maximum RSS of one run).

Reported: Spearman's rank correlation between predicted and measured
latency (per model over all its plans, and per model and N), how far the
plan the planner chooses at each N is from the fastest measured one, and
the memory estimate's error against both measurements (the worst rank).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

from benchutil import MPI_ENV, PY, ROOT, p50, run

SHARDC = os.path.join(ROOT, "build", "tools", "shardc", "shardc")
MOE_PY = "/tmp/moevenv/bin/python"

GPT_EXPORT = r'''
import sys, torch
sys.path.insert(0, %(inputs)r)
from export_models import GPT2
torch.manual_seed(0)
model = GPT2(vocab=2048, d=512, heads=8, layers=4, ctx=128).eval()
ids = torch.randint(0, 2048, (4, 128))
torch.onnx.export(model, (ids,), %(path)r, input_names=["ids"],
                  output_names=["logits"], opset_version=17)
'''

MOE_EXPORT = r'''
import sys, torch
from transformers import MixtralConfig, MixtralForCausalLM
sys.path.insert(0, %(inputs)r)
from export_moe import Logits
torch.manual_seed(0)
cfg = MixtralConfig(vocab_size=2048, hidden_size=256, num_hidden_layers=4,
                    num_attention_heads=8, num_key_value_heads=4,
                    intermediate_size=512, num_local_experts=4,
                    num_experts_per_tok=2, max_position_embeddings=128,
                    use_cache=False, initializer_range=0.2,
                    attn_implementation="eager")
model = Logits(MixtralForCausalLM(cfg)).eval()
ids = torch.randint(0, 2048, (4, 64))
torch.onnx.export(model, (ids,), %(path)r, opset_version=17,
                  input_names=["ids"], output_names=["logits"])
'''

MODELS = {
    "gpt": dict(title="GPT-2-style decoder (d=512, 4 layers, ids 4x128)",
                py=PY, export=GPT_EXPORT, ids=(4, 128)),
    "moe": dict(title="Mixtral-style MoE (d=256, 4 layers, 4 experts top-2, ids 4x64)",
                py=MOE_PY, export=MOE_EXPORT, ids=(4, 64)),
}


def spearman(a, b):
    """Spearman's rho with average ranks for ties."""
    def ranks(x):
        x = np.asarray(x, dtype=np.float64)
        order = np.argsort(x, kind="mergesort")
        r = np.empty(len(x))
        r[order] = np.arange(len(x))
        for v in np.unique(x):
            idx = np.where(x == v)[0]
            r[idx] = r[idx].mean()
        return r
    if len(a) < 2:
        return float("nan")
    ra, rb = ranks(a), ranks(b)
    return float(np.corrcoef(ra, rb)[0, 1])


def mpi(n, cmd):
    if n == 1:
        return cmd
    return ["mpirun", "--oversubscribe", "--bind-to", "none", "-np", str(n)] + cmd


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--iterations", type=int, default=8)
    ap.add_argument("--ranks", default="1,2,4")
    ap.add_argument("--models", default="gpt,moe")
    ap.add_argument("--shardc", default=SHARDC)
    ap.add_argument("--json")
    ap.add_argument("--markdown")
    args = ap.parse_args()
    ranks = [int(n) for n in args.ranks.split(",")]
    work = tempfile.mkdtemp(prefix="shardc-bench-planner-")
    print("work dir", work)

    specs = {}
    for n in sorted(set(max(2, n) for n in ranks)):
        path = os.path.join(work, "cpu%d.json" % n)
        print(run([args.shardc, "--calibrate-cluster", "--devices=%d" % n, "-o", path],
                  MPI_ENV).strip())
        specs[n] = path

    plans = []  # dicts: model, n, name, predicted, memory, chosen, exe
    for key in args.models.split(","):
        m = MODELS[key]
        if not os.path.exists(m["py"]):
            sys.exit("%s needs %s (see the docstring)" % (key, m["py"]))
        onnx_path = os.path.join(work, key + ".onnx")
        run([m["py"], "-c", m["export"] % {
            "inputs": os.path.join(ROOT, "test", "Models", "Inputs"), "path": onnx_path}])
        ids = os.path.join(work, key + "_ids.npy")
        b, s = m["ids"]
        np.save(ids, (np.arange(b * s, dtype=np.int64).reshape(b, s) * 7) % 2048)
        ref = os.path.join(work, key + "_ref")
        run([args.shardc, onnx_path, "-o", ref])
        run([ref, "--input", "ids=" + ids, "--output", ref + ".out"])
        expected = np.load(ref + ".out/logits.npy").astype(np.float64)
        for n in ranks:
            out = os.path.join(work, "%s_n%d.txt" % (key, n))
            run([args.shardc, onnx_path, "--devices=%d" % n,
                 "--cluster=" + specs[max(2, n)], "--emit=plan", "-o", out])
            result = json.load(open(out[:-4] + ".plan.json"))
            for i, c in enumerate(result["candidates"]):
                tag = "%s_n%d_%d" % (key, n, i)
                pf = os.path.join(work, tag + ".json")
                # The degrees and the per-layer strategies, as --plan reads them.
                json.dump({"plan": {k: c[k] for k in
                                    ("dp", "pp", "ep", "tp", "sp", "microbatches",
                                     "embedding", "head", "replicated_layers") if k in c}},
                          open(pf, "w"))
                exe = os.path.join(work, tag)
                p = subprocess.run([args.shardc, onnx_path, "--plan=" + pf, "-o", exe],
                                   capture_output=True, text=True)
                if p.returncode:
                    print("%s %s: not compiled: %s" % (key, c["name"], p.stderr.strip()))
                    continue
                run(mpi(n, [exe, "--input", "ids=" + ids, "--output", exe + ".out"]), MPI_ENV)
                got = np.load(exe + ".out/logits.npy").astype(np.float64)
                err = float(np.max(np.abs(got - expected)) / np.max(np.abs(expected)))
                if err > 1e-4:
                    sys.exit("%s %s differs from one rank: %g" % (key, c["name"], err))
                info = run([exe, "--info"])
                planned = max(int(a) + int(w) for a, w in re.findall(
                    r"arena (\d+) bytes, weights (\d+) bytes", info))
                rss = max(int(k) * 1024 for k in re.findall(r"maxrss_kb=(\d+)", run(
                    mpi(n, ["/usr/bin/time", "-f", "maxrss_kb=%M", exe, "--input",
                            "ids=" + ids, "--output", exe + ".rss"]), MPI_ENV)))
                mem = c["memory_per_rank_bytes"]
                plans.append(dict(model=key, n=n, name=c["name"], chosen=i == 0,
                                  predicted=c["latency_s"] * 1e3, exe=exe, ids=ids,
                                  predicted_memory=mem["total"],
                                  predicted_program=(mem["total"] - mem["runtime"]
                                                     - mem.get("io", 0)),
                                  planned_memory=planned, rss=rss, p50=[]))
                print("%s n=%d %-26s predicted %.2f ms, memory %.1f MiB (program %.1f, "
                      "rss %.1f)" % (key, n, c["name"], plans[-1]["predicted"],
                                     mem["total"] / 2**20, planned / 2**20, rss / 2**20))

    bench = ["--benchmark", "--warmup", "2", "--iterations", str(args.iterations),
             "--threads", "1"]
    for r in range(args.rounds):
        for p in plans:
            p["p50"].append(p50(run(mpi(p["n"], [p["exe"], "--input", "ids=" + p["ids"]] + bench),
                                    MPI_ENV)))
        print("round %d done" % (r + 1))
    for p in plans:
        p["measured"] = min(p["p50"])
        del p["exe"], p["ids"]

    lines = ["| model | ranks | plan | predicted (ms) | measured p50 (ms) | memory est. / program / RSS (MiB) |",
             "|---|---|---|---|---|---|"]
    for p in plans:
        lines.append("| %s | %d | %s%s | %.2f | %.2f | %.1f / %.1f / %.1f |" % (
            p["model"], p["n"], p["name"], " (chosen)" if p["chosen"] else "",
            p["predicted"], p["measured"], p["predicted_memory"] / 2**20,
            p["planned_memory"] / 2**20, p["rss"] / 2**20))
    lines.append("")
    summary = {}
    for key in args.models.split(","):
        mine = [p for p in plans if p["model"] == key]
        rho = spearman([p["predicted"] for p in mine], [p["measured"] for p in mine])
        summary[key] = {"plans": len(mine), "spearman": rho, "by_ranks": {}}
        lines.append("%s: %d plans, Spearman %.2f over all rank counts" % (key, len(mine), rho))
        for n in ranks:
            at = [p for p in mine if p["n"] == n]
            if not at:
                continue
            best = min(p["measured"] for p in at)
            chosen = [p for p in at if p["chosen"]][0]
            rho_n = spearman([p["predicted"] for p in at], [p["measured"] for p in at])
            summary[key]["by_ranks"][n] = {"plans": len(at), "spearman": rho_n,
                                           "chosen_over_best": chosen["measured"] / best}
            lines.append("  %d ranks: %d plans, Spearman %s, chosen %s at %.2f ms, best %.2f "
                         "ms (chosen / best = %.3f)" % (
                             n, len(at), "%.2f" % rho_n if len(at) > 1 else "-",
                             chosen["name"], chosen["measured"], best,
                             chosen["measured"] / best))
        prog = [abs(p["predicted_program"] / p["planned_memory"] - 1) for p in mine]
        rss = [abs(p["predicted_memory"] / p["rss"] - 1) for p in mine]
        summary[key]["memory_error_program"] = max(prog)
        summary[key]["memory_error_rss"] = max(rss)
        lines.append("  memory estimate: worst error %.1f%% against the program's arena + "
                     "weights, %.1f%% against the peak RSS (median %.1f%%, %.1f%%)" % (
                         100 * max(prog), 100 * max(rss), 100 * float(np.median(prog)),
                         100 * float(np.median(rss))))
    print("\n".join(lines))
    if args.json:
        json.dump({"plans": plans, "summary": summary}, open(args.json, "w"), indent=1)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
