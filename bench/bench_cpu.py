#!/usr/bin/env python3
"""CPU latency of shardc executables against ONNX Runtime, same models, same
inputs, same thread count, in one run on one machine.

  bench/bench_cpu.py [--threads 2] [--iterations 50] [--warmup 5] [--rounds 5]
                     [--models tiny_gpt2,gpt2,cnn,resnet18,mobilenet_v3_small]
                     [--shardc build/tools/shardc/shardc] [--markdown FILE]

For each model: export (torch models through test/Models/Inputs/torch_reference.py),
compile with shardc twice (with `--no-fusion` and with fusion, the default), run
each `./model --benchmark --threads N` and time
onnxruntime.InferenceSession (CPUExecutionProvider, intra_op_num_threads=N,
inter_op_num_threads=1, sequential execution) on the same input, and print
p50 latencies and the ratio shardc / ORT (below 1.0 means shardc is faster).

The three are timed in turn, `--rounds` times over (a fresh process of each
executable per round, one ORT session), and each reports the lowest of its
per-round p50s: sub-0.1 ms latencies on a shared 2-core machine shift by
up to 1.6x from one process to the next (host placement), for both sides
alike, and interleaving gives both the same conditions.
Also reports the end-to-end compile time of the bundled tiny GPT-2 example,
with ccache disabled.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
REF = os.path.join(ROOT, "test", "Models", "Inputs", "torch_reference.py")
PY = "/usr/bin/python3"


def ort_session(model, threads):
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    return ort.InferenceSession(model, so, providers=["CPUExecutionProvider"])


def ort_latency(sess, feeds, iterations, warmup):
    for _ in range(warmup):
        sess.run(None, feeds)
    times = []
    for _ in range(iterations):
        t = time.perf_counter()
        sess.run(None, feeds)
        times.append((time.perf_counter() - t) * 1000)
    return float(np.percentile(times, 50))


def prepare(name, work):
    """Returns (onnx path, input name, input array, shape flag)."""
    if name == "tiny_gpt2":
        ids = (np.arange(16, dtype=np.int64) * 7 % 512).reshape(1, 16)
        np.save(os.path.join(work, "tiny_gpt2.input.npy"), ids)
        return os.path.join(ROOT, "examples", "tiny_gpt2.onnx"), "ids", ids, "ids=1x16"
    opset = 17
    flag = subprocess.check_output([PY, REF, name, str(opset), work], text=True).strip()
    stem = os.path.join(work, "%s_opset%d" % (name, opset))
    inp = flag.split("=")[0]
    return stem + ".onnx", inp, np.load(stem + ".input.npy"), flag


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--iterations", type=int, default=50)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=5,
                    help="interleaved rounds; each side reports its best p50")
    ap.add_argument("--models", default="tiny_gpt2,gpt2,cnn,resnet18,mobilenet_v3_small")
    ap.add_argument("--shardc", default=os.path.join(ROOT, "build", "tools", "shardc", "shardc"))
    ap.add_argument("--markdown", help="append the table to this file")
    args = ap.parse_args()

    rows = []
    with tempfile.TemporaryDirectory() as work:
        # Compile time of the bundled example, end to end, no ccache.
        env = dict(os.environ, SHARDC_NO_CCACHE="1")
        t = time.perf_counter()
        subprocess.check_call([args.shardc, os.path.join(ROOT, "examples", "tiny_gpt2.onnx"),
                               "--input-shape", "ids=1x16", "-o", os.path.join(work, "tiny")], env=env)
        compile_s = time.perf_counter() - t
        print("tiny GPT-2 example: end-to-end compile %.2f s (no ccache)" % compile_s)

        for name in args.models.split(","):
            model, inp, x, flag = prepare(name, work)
            xin = os.path.join(work, name + ".in.npy")
            np.save(xin, x)

            def compile_exe(exe, flags):
                subprocess.check_call([args.shardc, model, "--input-shape", flag, "-o", exe] + flags)
                return exe

            def latency(exe):
                out = subprocess.check_output(
                    [exe, "--input", "%s=%s" % (inp, xin), "--benchmark", "--threads",
                     str(args.threads), "--iterations", str(args.iterations), "--warmup",
                     str(args.warmup)], text=True, stderr=subprocess.STDOUT)
                m = re.search(r"p50=([0-9.]+)", out)
                if not m:
                    sys.exit("no latency line from %s:\n%s" % (exe, out))
                return float(m.group(1))

            unfused_exe = compile_exe(os.path.join(work, name + "_unfused"), ["--no-fusion"])
            fused_exe = compile_exe(os.path.join(work, name), [])
            sess = ort_session(model, args.threads)
            unfused = ours = theirs = float("inf")
            for _ in range(args.rounds):
                unfused = min(unfused, latency(unfused_exe))
                ours = min(ours, latency(fused_exe))
                theirs = min(theirs, ort_latency(sess, {inp: x}, args.iterations, args.warmup))
            rows.append((name, "x".join(map(str, x.shape)), unfused, ours, theirs, ours / theirs))
            print("%-20s %-12s shardc p50 %8.3f ms (unfused %8.3f)   onnxruntime p50 %8.3f ms   "
                  "ratio %.2fx" % (rows[-1][0], rows[-1][1], ours, unfused, theirs, ours / theirs))

    if args.markdown:
        import onnxruntime
        lines = ["", "Threads: %d, iterations: %d (warm-up %d), best p50 of %d interleaved rounds; "
                 "onnxruntime %s; tiny GPT-2 compile %.2f s end to end without ccache." % (
                     args.threads, args.iterations, args.warmup, args.rounds,
                     onnxruntime.__version__, compile_s), "",
                 "| model | input | shardc --no-fusion p50 (ms) | shardc p50 (ms) | "
                 "ONNX Runtime p50 (ms) | ratio (fused / ORT) |",
                 "|---|---|---:|---:|---:|---:|"]
        lines += ["| %s | %s | %.3f | %.3f | %.3f | %.2fx |" % r for r in rows]
        with open(args.markdown, "a") as f:
            f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
