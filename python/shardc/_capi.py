"""The runtime's C API (shardc/runtime.h), bound with ctypes.

A library written by `shardc --emit=lib` holds the generated program
(`shardc_model_program`) and the whole runtime; every library loaded gets
its own copy of both (RTLD_LOCAL), so two models in one process do not see
each other's state.
"""
import ctypes

OK = 0

# ONNX TensorProto.DataType codes, as shardc_dtype.
FLOAT32, UINT8, INT8, UINT16, INT16, INT32, INT64 = 1, 2, 3, 4, 5, 6, 7
BOOL, FLOAT16, FLOAT64, UINT32, UINT64, BFLOAT16 = 9, 10, 11, 12, 13, 16

DEVICES = {"auto": 0, "cpu": 1, "cuda": 2}
RANK_FROM_LAUNCHER = -1


class TensorInfo(ctypes.Structure):
    _fields_ = [
        ("name", ctypes.c_char_p),
        ("dtype", ctypes.c_int32),
        ("rank", ctypes.c_int32),
        ("dims", ctypes.POINTER(ctypes.c_int64)),
        ("bytes", ctypes.c_size_t),
    ]


class GenerateOptions(ctypes.Structure):
    """shardc_generate_options."""
    _fields_ = [
        ("tokens", ctypes.c_int64),
        ("temperature", ctypes.c_double),
        ("top_k", ctypes.c_int64),
        ("top_p", ctypes.c_double),
        ("seed", ctypes.c_uint64),
        ("has_eos_id", ctypes.c_int32),
        ("eos_id", ctypes.c_int64),
        ("prompt_lengths", ctypes.POINTER(ctypes.c_int64)),
        ("sampler", ctypes.c_int32),
    ]


def bind(lib):
    """Declares the C API's signatures on `lib` (a ctypes.CDLL) and returns
    the address of its program."""
    p, i32, i64p, size = ctypes.c_void_p, ctypes.c_int32, ctypes.POINTER(
        ctypes.c_int64), ctypes.c_size_t
    status = ctypes.c_int
    sigs = {
        "shardc_last_error": (ctypes.c_char_p, []),
        "shardc_world_size": (ctypes.c_int, [p]),
        "shardc_load_on": (status, [p, ctypes.c_char_p, ctypes.c_int,
                                    ctypes.c_int, ctypes.POINTER(p)]),
        "shardc_free": (None, [p]),
        "shardc_device_description": (ctypes.c_char_p, [p]),
        "shardc_fallback_reason": (ctypes.c_char_p, [p]),
        "shardc_rank": (ctypes.c_int, [p]),
        "shardc_num_inputs": (ctypes.c_int, [p]),
        "shardc_num_outputs": (ctypes.c_int, [p]),
        "shardc_input_info": (status, [p, ctypes.c_int,
                                       ctypes.POINTER(TensorInfo)]),
        "shardc_output_info": (status, [p, ctypes.c_int,
                                        ctypes.POINTER(TensorInfo)]),
        "shardc_bind_input": (status, [p, ctypes.c_char_p, i32, i32, i64p, p,
                                       size]),
        "shardc_run": (status, [p]),
        "shardc_barrier": (status, [p]),
        "shardc_output": (status, [p, ctypes.c_int, ctypes.POINTER(p),
                                   ctypes.POINTER(size)]),
        "shardc_set_threads": (None, [ctypes.c_int]),
        "shardc_default_threads": (ctypes.c_int, []),
    }
    for name, (restype, argtypes) in sigs.items():
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = restype, argtypes
    # Libraries from before shardc_generate load too (Model.generate says
    # to recompile).
    if hasattr(lib, "shardc_generate"):
        lib.shardc_generate.restype = status
        lib.shardc_generate.argtypes = [p, ctypes.POINTER(GenerateOptions), i64p,
                                        ctypes.c_int64, ctypes.c_int64, i64p, i64p]
    return ctypes.addressof(ctypes.c_char.in_dll(lib, "shardc_model_program"))
