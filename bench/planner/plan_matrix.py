#!/usr/bin/env python3
"""Plans the shape-only large models on the GPU presets (issue 15, items 4
and 7) and prints a markdown table: the chosen plan per model, cluster and
objective, its estimates, memory per GPU and the wall time of planning.

  bench/planner/plan_matrix.py MODEL_DIR [--ids 1x2048] [--precision fp16]
                               [--models llama3-8b,...] [--clusters 8:h100-sxm-8,...]

MODEL_DIR holds the files bench/planner/make_shape_only_models.py writes.
Each row is one `shardc MODEL --devices=N --cluster=SPEC --optimize=OBJ
--emit=plan` run; a run over 10 s or one that fails is flagged.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SHARDC = os.path.join(ROOT, "build", "tools", "shardc", "shardc")
CHOSEN = re.compile(r"chosen: (?P<plan>.*?): latency (?P<lat>[0-9.]+ [mu]?s), "
                    r"throughput (?P<thr>[0-9.]+) rows/s, memory per rank "
                    r"(?P<mem>[0-9.]+ [KMG]iB)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model_dir")
    ap.add_argument("--ids", default="1x2048")
    ap.add_argument("--precision", default="fp16")
    ap.add_argument("--models", default="llama3-8b,llama2-70b,mixtral-8x7b,gpt3-175b")
    ap.add_argument("--clusters",
                    default="8:h100-sxm-8,8:a100-80g-8,16:h100-sxm-8x2,64:h100-sxm-8x8")
    ap.add_argument("--objectives", default="latency,throughput")
    ap.add_argument("--shardc", default=SHARDC)
    args = ap.parse_args()
    out_dir = tempfile.mkdtemp(prefix="plan-matrix-")
    print("| model | GPUs | cluster | objective | chosen | est. latency | est. rows/s "
          "| memory per GPU | planning time |")
    print("|---|---|---|---|---|---|---|---|---|")
    for model in args.models.split(","):
        path = os.path.join(args.model_dir, model + ".onnx")
        if not os.path.exists(path):
            sys.exit("%s: not found (make it with make_shape_only_models.py)" % path)
        for cluster in args.clusters.split(","):
            devices, spec = cluster.split(":")
            for objective in args.objectives.split(","):
                report = os.path.join(out_dir, "%s-%s-%s-%s.txt" % (model, devices, spec,
                                                                   objective))
                start = time.monotonic()
                p = subprocess.run(
                    [args.shardc, path, "--input-shape", "ids=" + args.ids,
                     "--precision=" + args.precision, "--devices=" + devices,
                     "--cluster=" + spec, "--optimize=" + objective, "--emit=plan",
                     "-o", report], capture_output=True, text=True)
                wall = time.monotonic() - start
                flag = " (over 10 s)" if wall > 10 else ""
                if p.returncode:
                    print("| %s | %s | %s | %s | failed: %s | | | | %.1f s |" % (
                        model, devices, spec, objective, p.stderr.strip()[:120], wall))
                    continue
                m = CHOSEN.search(open(report).read())
                print("| %s | %s | %s | %s | %s | %s | %s | %s | %.1f s%s |" % (
                    model, devices, spec, objective, m["plan"], m["lat"], m["thr"],
                    m["mem"], wall, flag))
    print("\nreports in", out_dir)


if __name__ == "__main__":
    main()
