#!/usr/bin/env python3
"""Decoding with a KV cache (issue 32, items 4 and 5): a GPT-2-sized
decoder exported with its cache (random weights from the GPT-2-small
config, or --layers/--hidden smaller), one executable compiled with
--max-shape for the prompt and the past, `--generate N --benchmark`
(time to first token, per-token latency) against ONNX Runtime's own greedy
loop on the same export in a process of its own (its cache is the
previous step's present, concatenated again each step), and against
decoding without a cache (the executable of the no-past export run on the
whole sequence for each token, what shardc could do before). Interleaved
rounds, best of each. `--tp N` also times a `--tp=N` build of the same
export under `mpirun -np N` (threads / N threads per rank), whose ids must
equal the one-rank program's.

  bench/bench_decode.py [--prompt 32] [--tokens 64] [--threads 2]
                        [--layers 12 --hidden 768 --heads 12] [--keep DIR]
                        [--tp N] [--tp-shardc PATH] [--busy N]
                        [--batch B] [--precision bf16] [--no-cache-tokens 0]

`--busy N` runs the timed rounds beside N busy-loop processes
(bench/bench_contention.py's loaded regimes).

Needs transformers for the export (the venv of
test/Models/Inputs/export_dynamic_hf.py: --python /tmp/hfvenv/bin/python).
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from benchutil import MPI_ENV, PY, ROOT, run  # noqa: E402
from bench_contention import start_busy, stop_busy  # noqa: E402

# The exports, by test/Models/Inputs/export_dynamic_hf.py's wrappers: the
# decoder with its cache flattened, and without (logits only).
EXPORT = r"""
import os, sys, torch
out, layers, hidden, heads, ctx = sys.argv[1], *map(int, sys.argv[2:6])
sys.path.insert(0, sys.argv[6])
from export_dynamic_hf import First, export_one_with_past
from transformers import GPT2Config, GPT2LMHeadModel
torch.manual_seed(0)
m = GPT2LMHeadModel(GPT2Config(n_layer=layers, n_embd=hidden, n_head=heads,
                               n_positions=ctx, attn_implementation="eager")).eval()
export_one_with_past(os.path.join(out, "past.onnx"), m, layers, heads, hidden // heads)
a = {0: "batch", 1: "sequence"}
torch.onnx.export(First(m), (torch.randint(0, 96, (1, 3)), torch.ones(1, 3, dtype=torch.int64)),
                  os.path.join(out, "nopast.onnx"), opset_version=17,
                  input_names=["input_ids", "attention_mask"], output_names=["logits"],
                  dynamic_axes={"input_ids": a, "attention_mask": a, "logits": a})
"""

# ONNX Runtime's greedy loop: prints the prefill and the mean per-token ms.
# Its cache is fed back through IOBinding (the presents stay OrtValues in
# ONNX Runtime's memory and are bound as the next step's pasts; only the
# logits come back to numpy), as a serving loop over ONNX Runtime runs it.
ORT_DECODE = r"""
import sys, time, numpy as np, onnxruntime as ort
model, prompt, n, threads = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
so = ort.SessionOptions(); so.intra_op_num_threads = threads; so.inter_op_num_threads = 1
s = ort.InferenceSession(model, so, providers=["CPUExecutionProvider"])
pasts = [i.name for i in s.get_inputs() if i.name.startswith("past_key_values.")]
shapes = {i.name: i.shape for i in s.get_inputs()}
names = [o.name for o in s.get_outputs()]
ids = np.load(prompt); b = ids.shape[0]
OV = ort.OrtValue.ortvalue_from_numpy
def once():
    past = {p: OV(np.zeros((b, shapes[p][1], 0, shapes[p][3]), np.float32)) for p in pasts}
    mask = np.ones_like(ids); step = ids; out = [list(r) for r in ids]; times = []
    for _ in range(n):
        t0 = time.perf_counter()
        io = s.io_binding()
        io.bind_cpu_input("input_ids", step); io.bind_cpu_input("attention_mask", mask)
        for p in pasts:
            io.bind_ortvalue_input(p, past[p])
        for o in names:
            io.bind_output(o, "cpu")
        s.run_with_iobinding(io)
        o = dict(zip(names, io.get_outputs()))
        nxt = o["logits"].numpy()[:, -1].argmax(-1).astype(np.int64)[:, None]
        times.append((time.perf_counter() - t0) * 1e3)
        past = {p: o[p.replace("past_key_values", "present")] for p in pasts}
        mask = np.concatenate([mask, np.ones((b, 1), np.int64)], 1); step = nxt
        for r in range(b):
            out[r].append(int(nxt[r, 0]))
    return times, out
once()
times, out = once()
print("ttft=%.3f per_token=%.3f ids=%s" % (times[0], sum(times[1:]) / (len(times) - 1),
                                           ",".join(str(t) for r in out for t in r)))
"""


def shardc_decode(exe, prompt, n, threads, ranks=1):
    launch = ["mpirun", "--oversubscribe", "-np", str(ranks)] if ranks > 1 else []
    text = run(launch + [exe, "--input", "input_ids=" + prompt, "--generate", str(n),
                         "--benchmark", "--threads", str(threads)],
               env=MPI_ENV if ranks > 1 else None)
    m = re.search(r"time_to_first_token_ms=([0-9.]+) per_token_ms=([0-9.]+)", text)
    # One line of ids per row after the benchmark line.
    rows = text.strip().splitlines()[-np.load(prompt).shape[0]:]
    return float(m.group(1)), float(m.group(2)), ",".join(",".join(r.split()) for r in rows)


def no_cache_decode(exe, prompt, n, threads, work):
    """Greedy decoding with the no-past executable: the whole sequence each
    step (one process per step; the timing is the model run's own, from
    --benchmark of one iteration)."""
    ids = np.load(prompt)
    times = []
    for _ in range(n):
        path = os.path.join(work, "seq.npy")
        np.save(path, ids)
        np.save(os.path.join(work, "m.npy"), np.ones_like(ids))
        text = run([exe, "--input", "input_ids=" + path, "--input",
                    "attention_mask=" + os.path.join(work, "m.npy"),
                    "--benchmark", "--warmup", "1", "--iterations", "3",
                    "--threads", str(threads)])
        times.append(float(re.search(r"p50=([0-9.]+)", text).group(1)))
        out = os.path.join(work, "o")
        run([exe, "--input", "input_ids=" + path, "--input",
             "attention_mask=" + os.path.join(work, "m.npy"), "--output", out,
             "--threads", str(threads)])
        logits = np.load(os.path.join(out, "logits.npy"))
        ids = np.concatenate([ids, logits[:, -1].argmax(-1)[:, None]], 1)
    return times[0], sum(times[1:]) / (len(times) - 1), [list(map(str, r)) for r in ids]


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--prompt", type=int, default=32)
    ap.add_argument("--tokens", type=int, default=64)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--batch", type=int, default=1, help="prompts decoded together")
    ap.add_argument("--precision", default="fp32",
                    help="shardc's --precision for the cached decoder (ONNX Runtime runs fp32)")
    ap.add_argument("--layers", type=int, default=12)
    ap.add_argument("--hidden", type=int, default=768)
    ap.add_argument("--heads", type=int, default=12)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--no-cache-tokens", type=int, default=16,
                    help="tokens of the no-cache baseline (it is slow; 0: none)")
    ap.add_argument("--python", default="/tmp/hfvenv/bin/python")
    ap.add_argument("--keep")
    ap.add_argument("--shardc", default=os.path.join(ROOT, "build", "tools", "shardc", "shardc"))
    ap.add_argument("--tp", type=int, default=1, help="also time a --tp=N build under mpirun")
    ap.add_argument("--tp-shardc", action="append", default=[],
                    help="another compiler for the --tp build, timed alongside (repeatable)")
    ap.add_argument("--busy", type=int, default=0,
                    help="busy-loop processes beside the timed rounds (default none)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = args.keep or tmp
        os.makedirs(work, exist_ok=True)
        ctx = 2 * (args.prompt + args.tokens)
        if not os.path.exists(os.path.join(work, "past.onnx")):
            run([args.python, "-c", EXPORT, work, str(args.layers),
                 str(args.hidden), str(args.heads), str(ctx),
                 os.path.join(ROOT, "test", "Models", "Inputs")])
        d = args.hidden // args.heads
        past = args.prompt + args.tokens
        t0 = time.time()
        run([args.shardc, os.path.join(work, "past.onnx"), "--max-shape",
             "input_ids=%dx%d" % (args.batch, args.prompt), "--max-shape",
             "past_key_values.0.key=%dx%dx%dx%d" % (args.batch, args.heads, past, d),
             "--precision=" + args.precision, "-o", os.path.join(work, "decode")])
        print("compiled the cached decoder in %.0f s" % (time.time() - t0))
        tps = {}
        if args.tp > 1:
            for i, compiler in enumerate([args.shardc] + args.tp_shardc):
                label = "shardc --tp=%d" % args.tp + (" (%s)" % compiler if i else "")
                tps[label] = os.path.join(work, "decode_tp%d_%d" % (args.tp, i))
                run([compiler, os.path.join(work, "past.onnx"), "--max-shape",
                     "input_ids=%dx%d" % (args.batch, args.prompt), "--max-shape",
                     "past_key_values.0.key=%dx%dx%dx%d" % (args.batch, args.heads, past, d),
                     "--tp=%d" % args.tp, "-o", tps[label]])
        if args.no_cache_tokens:
            run([args.shardc, os.path.join(work, "nopast.onnx"), "--max-shape",
                 "input_ids=%dx%d" % (args.batch, args.prompt + args.tokens), "-o",
                 os.path.join(work, "nocache")])
        prompt = os.path.join(work, "prompt.npy")
        np.save(prompt, np.random.default_rng(0).integers(
            0, 1000, (args.batch, args.prompt)).astype(np.int64))
        best = {}
        busy = start_busy(args.busy, False) if args.busy else []
        try:
            for r in range(args.rounds):
                ttft, tok, ids = shardc_decode(os.path.join(work, "decode"), prompt,
                                               args.tokens, args.threads)
                best["shardc"] = min(best.get("shardc", (1e9, 1e9, "")), (ttft, tok, ids),
                                     key=lambda x: x[1])
                text = run([PY, "-c", ORT_DECODE, os.path.join(work, "past.onnx"),
                            prompt, str(args.tokens), str(args.threads)])
                m = re.search(r"ttft=([0-9.]+) per_token=([0-9.]+) ids=(\S+)", text)
                o = (float(m.group(1)), float(m.group(2)), m.group(3))
                best["ort"] = min(best.get("ort", (1e9, 1e9, "")), o, key=lambda x: x[1])
                print("round %d: shardc ttft %.2f ms, %.2f ms/token; ONNX Runtime %.2f, %.2f"
                      % (r, ttft, tok, o[0], o[1]), flush=True)
                for label, exe in tps.items():
                    t = shardc_decode(exe, prompt, args.tokens, max(1, args.threads // args.tp),
                                      args.tp)
                    best[label] = min(best.get(label, (1e9, 1e9, "")), t, key=lambda x: x[1])
                    print("round %d: %s ttft %.2f ms, %.2f ms/token" % (r, label, t[0], t[1]),
                          flush=True)
        finally:
            stop_busy(busy)
        nc = no_cache_decode(os.path.join(work, "nocache"), prompt,
                             args.no_cache_tokens, args.threads,
                             work) if args.no_cache_tokens else None
        same = best["shardc"][2] == best["ort"][2]
        got, want = best["shardc"][2].split(","), best["ort"][2].split(",")
        agree = sum(a == b for a, b in zip(got, want))
        # The no-cache rows against the cached ones, row by row.
        got = best["shardc"][2].split(",")
        width = len(got) // args.batch
        prefix = nc and all(r == got[i * width:i * width + len(r)]
                            for i, r in enumerate(nc[2]))
        print("| decoder | prompt | new tokens | time to first token (ms) | per token (ms) |")
        print("|---|---:|---:|---:|---:|")
        print("| shardc `--generate` (KV cache in place) | %d | %d | %.2f | %.2f |"
              % (args.prompt, args.tokens, best["shardc"][0], best["shardc"][1]))
        print("| ONNX Runtime 1.31, greedy loop (concatenated cache) | %d | %d | %.2f | %.2f |"
              % (args.prompt, args.tokens, best["ort"][0], best["ort"][1]))
        for label in tps:
            print("| %s, %d ranks x %d threads | %d | %d | %.2f | %.2f |"
                  % (label, args.tp, max(1, args.threads // args.tp), args.prompt,
                     args.tokens, best[label][0], best[label][1]))
        if nc:
            print("| shardc without a cache (whole sequence per token) | %d | %d | %.2f | %.2f |"
                  % (args.prompt, args.no_cache_tokens, nc[0], nc[1]))
        print("per-token ratio shardc / ONNX Runtime: %.2fx; same ids as ONNX Runtime: %s "
              "(%d of %d); no-cache ids a prefix: %s"
              % (best["shardc"][1] / best["ort"][1], same, agree, len(want), prefix))
        for label in tps:
            print("%s: same ids as one rank: %s" % (label, best[label][2] == best["shardc"][2]))


if __name__ == "__main__":
    main()
