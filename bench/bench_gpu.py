#!/usr/bin/env python3
"""GPU latency of a shardc executable against PyTorch eager and torch.compile,
same model, same weights, same input, in one run on one GPU.

The model is the GPT-2-style decoder of test/Models/Inputs/export_models.py at
GPT-2-small size (12 layers, d=768, 12 heads, vocabulary 50257), batch 8 x
sequence 512, in fp16. Two steps, because shardc is built here and the GPU is
on the `device` machine:

  bench/bench_gpu.py prepare DIR [--layers 12 --d 768 --heads 12 --vocab 50257
                                  --batch 8 --seq 512] [--split-mib 60]
      (here) exports the model (seeded random weights, opset 17), compiles it
      with `shardc --target=cuda --precision=fp16`, saves the input ids, and
      splits the weights file into parts small enough for the device tool's
      64 MiB carry limit (reassembled by `run`).

  bench/bench_gpu.py run DIR [--iterations 50] [--warmup 10] [--markdown FILE]
      (on the GPU machine, which has PyTorch) rebuilds the same model from the
      same seed, times it in fp16 eager and under torch.compile with CUDA
      events, runs `DIR/gpt2s --benchmark`, checks the executable's logits
      against PyTorch's (largest error relative to the logits' scale), and
      prints p50 latency, TFLOP/s (matmul FLOPs) and the ratios.
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(ROOT, "test", "Models", "Inputs"))


def model_args(a):
    return dict(vocab=a.vocab, d=a.d, heads=a.heads, layers=a.layers, ctx=max(a.seq, 64))


def build(cfg):
    import torch
    import export_models
    torch.manual_seed(0)
    return export_models.GPT2(**cfg)


def matmul_flops(cfg, batch, seq):
    """Multiply-adds x 2 of every GEMM (projections, attention, LM head)."""
    d, t = cfg["d"], batch * seq
    per_layer = 2 * t * (3 * d * d + d * d + 8 * d * d) + 2 * 2 * batch * seq * seq * d
    return cfg["layers"] * per_layer + 2 * t * d * cfg["vocab"]


def prepare(a):
    import numpy as np
    import torch
    os.makedirs(a.dir, exist_ok=True)
    cfg = model_args(a)
    model = build(cfg).eval()
    ids = torch.randint(0, a.vocab, (a.batch, a.seq), generator=torch.Generator().manual_seed(1))
    onnx_path = os.path.join(a.dir, "gpt2s.onnx")
    torch.onnx.export(model, (ids,), onnx_path, input_names=["ids"], output_names=["logits"],
                      opset_version=17)
    np.save(os.path.join(a.dir, "ids.npy"), ids.numpy())
    exe = os.path.join(a.dir, "gpt2s")
    cmd = [a.shardc, onnx_path, "--target=cuda", "--precision=fp16", "-o", exe, "-v"]
    print(" ".join(cmd), flush=True)
    subprocess.run(cmd, check=True)
    os.remove(onnx_path)
    weights = exe + ".weights"
    part = a.split_mib << 20
    size = os.path.getsize(weights)
    with open(weights, "rb") as f:
        for k in range((size + part - 1) // part):
            with open("%s.part%02d" % (weights, k), "wb") as out:
                out.write(f.read(part))
    os.remove(weights)
    with open(os.path.join(a.dir, "config.json"), "w") as f:
        json.dump(dict(cfg, batch=a.batch, seq=a.seq), f)
    print("prepared %s: executable %d B, weights %d B in %d parts" % (
        a.dir, os.path.getsize(exe), size, (size + part - 1) // part))


def time_torch(fn, ids, warmup, iterations):
    import torch
    with torch.no_grad():
        for _ in range(warmup):
            fn(ids)
        torch.cuda.synchronize()
        times = []
        for _ in range(iterations):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fn(ids)
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end))
    times.sort()
    return times[len(times) // 2]


def run(a):
    import numpy as np
    import torch
    with open(os.path.join(a.dir, "config.json")) as f:
        cfg = json.load(f)
    batch, seq = cfg.pop("batch"), cfg.pop("seq")
    exe = os.path.join(a.dir, "gpt2s")
    weights = exe + ".weights"
    parts = sorted(glob.glob(weights + ".part*"))
    if parts:
        with open(weights, "wb") as out:
            for p in parts:
                with open(p, "rb") as f:
                    out.write(f.read())
    ids_np = np.load(os.path.join(a.dir, "ids.npy"))
    ids = torch.from_numpy(ids_np).cuda()
    model = build(cfg).eval().half().cuda()
    flops = matmul_flops(cfg, batch, seq)
    gpu = torch.cuda.get_device_name()

    rows = []
    eager = time_torch(model, ids, a.warmup, a.iterations)
    rows.append(("PyTorch eager (fp16)", eager))
    compiled = torch.compile(model)
    rows.append(("torch.compile (fp16)", time_torch(compiled, ids, a.warmup, a.iterations)))

    out_dir = os.path.join(a.dir, "out")
    subprocess.run([exe, "--input", "ids=" + os.path.join(a.dir, "ids.npy"), "--output", out_dir],
                   check=True)
    with torch.no_grad():
        ref = model(ids).float().cpu().numpy()
    got = np.load(os.path.join(out_dir, "logits.npy"))
    err = float(np.max(np.abs(got - ref)) / max(np.max(np.abs(ref)), 1e-30))
    p = subprocess.run([exe, "--input", "ids=" + os.path.join(a.dir, "ids.npy"), "--benchmark",
                        "--warmup", str(a.warmup), "--iterations", str(a.iterations)],
                       capture_output=True, text=True, check=True)
    m = re.search(r"p50=([0-9.]+)", p.stdout + p.stderr)
    shardc_ms = float(m.group(1))
    rows.append(("shardc (fp16, CUDA graph)", shardc_ms))

    lines = ["GPU: %s; GPT-2-small-sized decoder (%d layers, d=%d, %d heads, vocab %d), "
             "batch %d x seq %d, fp16; %.1f GFLOP of matmuls per forward" % (
                 gpu, cfg["layers"], cfg["d"], cfg["heads"], cfg["vocab"], batch, seq, flops / 1e9),
             "shardc logits vs PyTorch fp16: largest error / max|logit| = %.2e" % err, "",
             "| runner | p50 latency (ms) | TFLOP/s | shardc speed-up |", "|---|---|---|---|"]
    for name, ms in rows:
        lines.append("| %s | %.3f | %.1f | %.2fx |" % (name, ms, flops / ms / 1e9, ms / shardc_ms))
    text = "\n".join(lines)
    print(text)
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write(text + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="step", required=True)
    p = sub.add_parser("prepare")
    p.add_argument("dir")
    p.add_argument("--shardc", default=os.path.join(ROOT, "build", "tools", "shardc", "shardc"))
    for name, default in (("layers", 12), ("d", 768), ("heads", 12), ("vocab", 50257),
                          ("batch", 8), ("seq", 512), ("split-mib", 60)):
        p.add_argument("--" + name, type=int, default=default)
    r = sub.add_parser("run")
    r.add_argument("dir")
    r.add_argument("--iterations", type=int, default=50)
    r.add_argument("--warmup", type=int, default=10)
    r.add_argument("--markdown")
    a = ap.parse_args()
    prepare(a) if a.step == "prepare" else run(a)


if __name__ == "__main__":
    main()
