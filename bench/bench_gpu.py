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
    prepare_attention(a)
    if a.attention_only:
        return
    cfg = model_args(a)
    model = build(cfg).eval()
    ids = torch.randint(0, a.vocab, (a.batch, a.seq), generator=torch.Generator().manual_seed(1))
    onnx_path = os.path.join(a.dir, "gpt2s.onnx")
    torch.onnx.export(model, (ids,), onnx_path, input_names=["ids"], output_names=["logits"],
                      opset_version=17)
    np.save(os.path.join(a.dir, "ids.npy"), ids.numpy())
    exe = os.path.join(a.dir, "gpt2s")
    cmd = [a.shardc, onnx_path, "--target=cuda", "--precision=fp16",
           "--cuda-arch=" + a.cuda_arch, "-o", exe, "-v"]
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
    if not os.path.exists(os.path.join(a.dir, "config.json")):  # --attention-only
        text = "\n".join(attention(a, torch.cuda.get_device_name()))
        print(text)
        if a.markdown:
            with open(a.markdown, "w") as f:
                f.write(text + "\n")
        return
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
    # shardc's run ends with the logits in host memory; PyTorch's does not.
    # The same forward with the logits copied to (pageable) host memory:
    rows.append(("PyTorch eager + logits to host",
                 time_torch(lambda x: model(x).float().cpu(), ids, a.warmup, a.iterations)))
    rows.append(("torch.compile + logits to host",
                 time_torch(lambda x: compiled(x).float().cpu(), ids, a.warmup, a.iterations)))

    lines = attention(a, gpu) + ["GPU: %s; GPT-2-small-sized decoder (%d layers, d=%d, %d heads, vocab %d), "
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


ATTENTION = dict(batch=8, heads=12, seq=512, dim=64, chain=(1, 17))


def prepare_attention(a):
    """Two ONNX models of scaled-dot-product attention chained n times
    (q_{i+1} = attention(q_i, k, v)), compiled with --precision=fp16: the
    time of one attention is the difference of their runs over the extra
    links, so the input and output copies cancel."""
    import torch

    class Chain(torch.nn.Module):
        def __init__(self, n):
            super().__init__()
            self.n = n

        def forward(self, q, k, v):
            for _ in range(self.n):
                att = (q @ k.transpose(-2, -1)) * (1.0 / ATTENTION["dim"] ** 0.5)
                q = torch.softmax(att, dim=-1) @ v
            return q

    shape = (ATTENTION["batch"], ATTENTION["heads"], ATTENTION["seq"], ATTENTION["dim"])
    x = tuple(torch.randn(shape) for _ in range(3))
    for n in ATTENTION["chain"]:
        onnx_path = os.path.join(a.dir, "attention%d.onnx" % n)
        torch.onnx.export(Chain(n), x, onnx_path, input_names=["q", "k", "v"],
                          output_names=["out"], opset_version=17)
        exe = os.path.join(a.dir, "attention%d" % n)
        subprocess.run([a.shardc, onnx_path, "--target=cuda", "--precision=fp16",
                        "--cuda-arch=" + a.cuda_arch, "-o", exe] + a.attention_flags.split(),
                       check=True)
        kern = subprocess.run([a.shardc, onnx_path, "--target=cuda", "--precision=fp16",
                               "--emit=kern"], capture_output=True, text=True, check=True).stdout
        if "attention" not in kern:
            sys.exit("attention%d: the chain did not fuse into attention kernels" % n)
        os.remove(onnx_path)


def attention(a, gpu):
    """Rows comparing shardc's fused attention with PyTorch's
    scaled_dot_product_attention (fp16, same shapes); [] if not prepared."""
    import numpy as np
    import torch
    import torch.nn.functional as F
    lo, hi = ATTENTION["chain"]
    if not os.path.exists(os.path.join(a.dir, "attention%d" % hi)):
        return []
    shape = (ATTENTION["batch"], ATTENTION["heads"], ATTENTION["seq"], ATTENTION["dim"])
    rng = np.random.default_rng(0)
    args = []
    for name in "qkv":
        path = os.path.join(a.dir, name + ".npy")
        np.save(path, rng.standard_normal(shape).astype(np.float32))
        args += ["--input", "%s=%s" % (name, path)]
    p50 = {}
    for n in (lo, hi):
        p = subprocess.run([os.path.join(a.dir, "attention%d" % n)] + args +
                           ["--benchmark", "--warmup", str(a.warmup),
                            "--iterations", str(a.iterations)],
                           capture_output=True, text=True, check=True)
        p50[n] = float(re.search(r"p50=([0-9.]+)", p.stdout + p.stderr).group(1))
    ours = (p50[hi] - p50[lo]) / (hi - lo)
    # The check: one link against PyTorch.
    out_dir = os.path.join(a.dir, "attention_out")
    subprocess.run([os.path.join(a.dir, "attention%d" % lo)] + args + ["--output", out_dir],
                   check=True)
    q, k, v = (torch.from_numpy(np.load(os.path.join(a.dir, n + ".npy"))).cuda().half()
               for n in "qkv")
    ref = F.scaled_dot_product_attention(q, k, v).float().cpu().numpy()
    got = np.load(os.path.join(out_dir, "out.npy"))
    err = float(np.max(np.abs(got - ref)) / np.max(np.abs(ref)))
    sdpa = time_torch(lambda x: F.scaled_dot_product_attention(x, k, v), q, a.warmup,
                      a.iterations)
    flops = 4.0 * ATTENTION["batch"] * ATTENTION["heads"] * ATTENTION["seq"] ** 2 * \
        ATTENTION["dim"]
    return ["GPU: %s; attention, batch %d x %d heads x seq %d x dim %d, fp16, no mask" % (
                gpu, ATTENTION["batch"], ATTENTION["heads"], ATTENTION["seq"], ATTENTION["dim"]),
            "shardc attention vs PyTorch SDPA: largest error / max|out| = %.2e" % err, "",
            "| attention | time (ms) | TFLOP/s |", "|---|---|---|",
            "| shardc fused kernel ((p50 of %d links - p50 of %d) / %d) | %.4f | %.1f |" % (
                hi, lo, hi - lo, ours, flops / ours / 1e9),
            "| PyTorch scaled_dot_product_attention | %.4f | %.1f |" % (sdpa, flops / sdpa / 1e9),
            ""]


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
    p.add_argument("--cuda-arch", default="sm_80,sm_90,compute_90")
    p.add_argument("--attention-only", action="store_true")
    p.add_argument("--attention-flags", default="",
                   help="extra shardc flags for the attention chains (the "
                        "tensor-core kernel's hidden --cuda-attention-* "
                        "switches, to measure its variants)")
    r = sub.add_parser("run")
    r.add_argument("dir")
    r.add_argument("--iterations", type=int, default=50)
    r.add_argument("--warmup", type=int, default=10)
    r.add_argument("--markdown")
    a = ap.parse_args()
    prepare(a) if a.step == "prepare" else run(a)


if __name__ == "__main__":
    main()
