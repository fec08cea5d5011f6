"""shardc from Python: compile an ONNX model, load the result, run it.

    import shardc
    lib = shardc.compile("model.onnx", "out/model", input_shape={"ids": (1, 16)})
    m = shardc.load(lib)
    outputs = m.run({"ids": ids})          # {name: numpy array}

`compile` runs the shardc compiler (`$SHARDC`, else `shardc` on the PATH)
with `--emit=lib`, which writes a shared library (the generated program and
the runtime, exporting the C API of shardc/runtime.h) and its weights file.
`load` opens the library with ctypes and the weights with the runtime's
loader (validated, memory-mapped). Nothing is compiled at install time.
"""
import ctypes
import os
import shutil
import subprocess

import numpy as np

from . import _capi

__all__ = ["ShardcError", "compile", "load", "Model", "find_compiler"]
__version__ = "0.1.0"


class ShardcError(RuntimeError):
    """A compile or a runtime call failed; the message is shardc's line."""


def find_compiler():
    """The shardc compiler to run: $SHARDC, else `shardc` on the PATH."""
    path = os.environ.get("SHARDC") or shutil.which("shardc")
    if not path:
        raise ShardcError(
            "shardc: the compiler is not on the PATH; install it "
            "(cmake --install build --prefix DIR, then DIR/bin on the PATH) "
            "or set SHARDC to its path")
    return path


def _flag(name, value):
    """One keyword argument as command-line words."""
    flag = "--" + name.replace("_", "-")
    if value is True:
        return [flag]
    if value is False or value is None:
        return []
    if isinstance(value, dict):  # input_shape={"ids": (1, 16)}
        words = []
        for key, v in value.items():
            if isinstance(v, (tuple, list)):
                v = "x".join(str(int(d)) for d in v)
            words.append("%s=%s=%s" % (flag, key, v))
        return words
    if isinstance(value, (tuple, list)):
        value = ",".join(str(v) for v in value)
    return ["%s=%s" % (flag, value)]


def _library_paths(path):
    """(library, weights) for `path`: DIR/model or DIR/model.so."""
    path = os.fspath(path)
    stem = path[:-3] if path.endswith(".so") else path
    return stem + ".so", stem + ".weights"


def compile(model, output, *, compiler=None, verbose=False, **flags):
    """Compiles `model` (an ONNX file) into `output`.so and `output`.weights
    and returns the library's path. Keyword arguments are shardc's flags:
    `tp=2` is --tp=2, `input_shape={"ids": (1, 16)}` is --input-shape
    ids=1x16, `save_temps="dir"` is --save-temps=dir, True a bare flag.
    Raises ShardcError with the compiler's message on failure."""
    library, _ = _library_paths(output)
    directory = os.path.dirname(os.path.abspath(library))
    os.makedirs(directory, exist_ok=True)
    args = [compiler or find_compiler(), os.fspath(model), "--emit=lib", "-o",
            library]
    for name, value in flags.items():
        args += _flag(name, value)
    if verbose:
        args.append("-v")
    done = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True)
    if verbose and done.stderr:
        print(done.stderr, end="")
    if done.returncode != 0:
        lines = [l for l in done.stderr.splitlines() if l.strip()]
        errors = [l for l in lines if "error" in l] or lines
        raise ShardcError(errors[0] if errors else
                          "shardc exited with status %d" % done.returncode)
    return library


_NUMPY = {
    _capi.FLOAT32: np.float32, _capi.UINT8: np.uint8, _capi.INT8: np.int8,
    _capi.UINT16: np.uint16, _capi.INT16: np.int16, _capi.INT32: np.int32,
    _capi.INT64: np.int64, _capi.BOOL: np.bool_, _capi.FLOAT16: np.float16,
    _capi.FLOAT64: np.float64, _capi.UINT32: np.uint32,
    _capi.UINT64: np.uint64,
    # numpy has no bfloat16: float32 in and out, converted here.
    _capi.BFLOAT16: np.float32,
}


def _to_bf16(a):
    """float32 -> bfloat16 bits (uint16), rounding to nearest even."""
    bits = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32)
    rounded = bits + (0x7FFF + ((bits >> 16) & 1))
    out = (rounded >> 16).astype(np.uint16)
    nan = np.isnan(a)
    out[nan] = 0x7FC0
    return out


def _from_bf16(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


class Tensor:
    """An input or output's compiled signature."""

    def __init__(self, info):
        self.name = info.name.decode()
        self.code = info.dtype
        self.dtype = np.dtype(_NUMPY.get(info.dtype, np.uint8))
        self.shape = tuple(info.dims[i] for i in range(info.rank))
        self.bytes = info.bytes

    def __repr__(self):
        kind = "bfloat16" if self.code == _capi.BFLOAT16 else self.dtype.name
        return "%s: %s%s" % (self.name, kind, list(self.shape))


class Model:
    """A compiled model loaded into this process (one rank of its program).
    Use `load` to make one."""

    def __init__(self, library, weights=None, *, threads=None, device="auto"):
        library, default_weights = _library_paths(library)
        weights = os.fspath(weights) if weights else default_weights
        for path, what in ((library, "library"), (weights, "weights file")):
            if not os.path.isfile(path):
                raise ShardcError("%s: no such %s" % (path, what))
        if device not in _capi.DEVICES:
            raise ShardcError("device %r: one of %s" %
                              (device, ", ".join(_capi.DEVICES)))
        self._model = None
        self.path = library
        try:
            self._lib = ctypes.CDLL(os.path.abspath(library),
                                    mode=ctypes.RTLD_LOCAL)
        except OSError as e:
            raise ShardcError("%s: cannot load the library: %s" %
                              (library, e)) from None
        try:
            program = _capi.bind(self._lib)
        except (AttributeError, ValueError):
            raise ShardcError("%s: not a library shardc wrote (no "
                              "shardc_model_program or C API; compile with "
                              "shardc --emit=lib)" % library) from None
        world = self._lib.shardc_world_size(program)
        if world < 0:
            raise ShardcError(self._error())
        self.world_size = world
        if threads:
            self._lib.shardc_set_threads(int(threads))
        elif not os.environ.get("OMP_NUM_THREADS"):
            self._lib.shardc_set_threads(self._lib.shardc_default_threads())
        handle = ctypes.c_void_p()
        rank = _capi.RANK_FROM_LAUNCHER if world > 1 else 0
        if self._lib.shardc_load_on(program, weights.encode(), rank,
                                    _capi.DEVICES[device],
                                    ctypes.byref(handle)) != _capi.OK:
            raise ShardcError(self._error())
        self._model = handle
        self.rank = self._lib.shardc_rank(handle)
        self.device = self._lib.shardc_device_description(handle).decode()
        self.fallback_reason = self._lib.shardc_fallback_reason(handle).decode()
        self.inputs = self._signature(self._lib.shardc_num_inputs,
                                      self._lib.shardc_input_info)
        self.outputs = self._signature(self._lib.shardc_num_outputs,
                                       self._lib.shardc_output_info)

    def _error(self):
        return self._lib.shardc_last_error().decode()

    def _check(self, status):
        if status != _capi.OK:
            raise ShardcError(self._error())

    def _signature(self, count, info_of):
        result = []
        for i in range(count(self._model)):
            info = _capi.TensorInfo()
            self._check(info_of(self._model, i, ctypes.byref(info)))
            result.append(Tensor(info))
        return result

    def run(self, inputs=None, **named):
        """Runs the model once on `inputs` ({name: array}, or keywords) and
        returns {output name: numpy array} (copies). Arrays are cast to the
        compiled dtype when numpy's same-kind casting allows it (int32 ids
        to int64, float64 to float32); shapes must be the compiled ones."""
        if self._model is None:
            raise ShardcError("the model is closed")
        given = dict(inputs or {}, **named)
        expected = {t.name: t for t in self.inputs}
        for name in given:
            if name not in expected and self.world_size == 1:
                raise ShardcError("no input named '%s'; the inputs are %s" %
                                  (name, ", ".join(repr(t) for t in self.inputs)))
        missing = [n for n in expected if n not in given]
        if missing:
            raise ShardcError("input '%s' not given (%r)" %
                              (missing[0], expected[missing[0]]))
        keep = []  # alive until the binding copied them
        for name, t in expected.items():
            a = np.asarray(given[name])
            if not np.can_cast(a.dtype, t.dtype, casting="same_kind"):
                raise ShardcError("input '%s': %s given, %r expected" %
                                  (name, a.dtype, t))
            a = np.ascontiguousarray(a, dtype=t.dtype)
            if t.code == _capi.BFLOAT16:
                a = _to_bf16(a)
            dims = (ctypes.c_int64 * max(a.ndim, 1))(*a.shape)
            keep.append(a)
            self._check(self._lib.shardc_bind_input(
                self._model, name.encode(), t.code, a.ndim, dims,
                a.ctypes.data, a.nbytes))
        self._check(self._lib.shardc_run(self._model))
        result = {}
        for i, t in enumerate(self.outputs):
            data, size = ctypes.c_void_p(), ctypes.c_size_t()
            self._check(self._lib.shardc_output(self._model, i,
                                                ctypes.byref(data),
                                                ctypes.byref(size)))
            raw = np.frombuffer(ctypes.string_at(data, size.value) if size.value
                                else b"", dtype=np.uint16 if t.code ==
                                _capi.BFLOAT16 else t.dtype)
            if t.code == _capi.BFLOAT16:
                raw = _from_bf16(raw)
            result[t.name] = raw.reshape(t.shape).copy()
        return result

    def generate(self, input_ids, max_new_tokens, *, attention_mask=None,
                 prompt_lengths=None, temperature=0.0, top_k=0, top_p=1.0,
                 seed=0, eos_token_id=None, sampler=0):
        """Generates `max_new_tokens` tokens per row after the prompt
        `input_ids` ([batch, length] integers) with a decoder compiled from a
        with-past export (`--max-shape` for the past: its KV cache kept
        between steps), as `./model --generate` does: greedy, or sampled
        with `temperature` > 0 (`top_k`, `top_p`, `seed`); `attention_mask`
        ([batch, length], 1 = attend) or `prompt_lengths` (row i's first
        lengths[i] ids count) for ragged prompts; a row that produces
        `eos_token_id` repeats it. Returns the ids, [batch, length +
        max_new_tokens] int64. Under mpirun every rank calls it alike, and
        rank `sampler` (the one with the logits; 0 under --tp) picks."""
        if self._model is None:
            raise ShardcError("the model is closed")
        if not hasattr(self._lib, "shardc_generate"):
            raise ShardcError("%s: compiled by a shardc without generation; "
                              "compile it again" % self.path)
        ids = np.asarray(input_ids)
        if ids.ndim != 2 or not np.issubdtype(ids.dtype, np.integer):
            raise ShardcError("input_ids: a [batch, length] integer array "
                              "is needed, got %s %s" % (ids.dtype, list(ids.shape)))
        ids = np.ascontiguousarray(ids, dtype=np.int64)
        mask = None
        if attention_mask is not None:
            mask = np.ascontiguousarray(np.asarray(attention_mask), dtype=np.int64)
            if mask.shape != ids.shape:
                raise ShardcError("attention_mask: shape %s, the prompt's is %s"
                                  % (list(mask.shape), list(ids.shape)))
        o = _capi.GenerateOptions()
        o.tokens, o.temperature = int(max_new_tokens), float(temperature)
        o.top_k, o.top_p, o.seed = int(top_k), float(top_p), int(seed)
        o.has_eos_id = eos_token_id is not None
        o.eos_id = int(eos_token_id) if eos_token_id is not None else 0
        o.sampler = int(sampler)
        lengths = None
        if prompt_lengths is not None:
            lengths = np.ascontiguousarray(prompt_lengths, dtype=np.int64)
            if lengths.shape != (ids.shape[0],):
                raise ShardcError("prompt_lengths: %d lengths for %d rows"
                                  % (lengths.size, ids.shape[0]))
            o.prompt_lengths = lengths.ctypes.data_as(ctypes.POINTER(ctypes.c_int64))
        out = np.zeros((ids.shape[0], ids.shape[1] + max(int(max_new_tokens), 0)),
                       np.int64)
        i64p = ctypes.POINTER(ctypes.c_int64)
        self._check(self._lib.shardc_generate(
            self._model, ctypes.byref(o), ids.ctypes.data_as(i64p), ids.shape[0],
            ids.shape[1], mask.ctypes.data_as(i64p) if mask is not None else None,
            out.ctypes.data_as(i64p)))
        return out

    def barrier(self):
        """Waits for every rank of a multi-rank program (at once on one)."""
        self._check(self._lib.shardc_barrier(self._model))

    def close(self):
        if self._model is not None:
            self._lib.shardc_free(self._model)
            self._model = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def __repr__(self):
        return "shardc.Model(%r, rank %d of %d, %s, inputs [%s], outputs [%s])" % (
            self.path, self.rank, self.world_size, self.device,
            ", ".join(map(repr, self.inputs)), ", ".join(map(repr, self.outputs)))


def load(path, weights=None, *, threads=None, device="auto"):
    """Loads a library written by `compile` (DIR/model or DIR/model.so, its
    weights DIR/model.weights unless `weights` names them) on `device`
    ("auto", "cpu" or "cuda"). `threads` sets the CPU code's OpenMP threads
    (default: OMP_NUM_THREADS, else this process's CPUs within its cgroup
    quota). Under mpirun each process loads its own rank."""
    return Model(path, weights, threads=threads, device=device)
