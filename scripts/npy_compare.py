"""One output against its reference, the way shardc's multi-rank tests
compare them (scripts/sharding-conformance.py,
test/Integration/Inputs/compare_dirs.py): the same shape and dtype; for
floats, NaN and infinities at the same places with the same signs and the
finite elements within `rtol` of the reference's largest finite magnitude;
anything else equal.
"""
import numpy as np


def difference(got, ref, rtol):
    """None when `got` matches `ref`, else what differs, in a few words."""
    if got.shape != ref.shape or got.dtype != ref.dtype:
        return "%s %s, expected %s %s" % (got.shape, got.dtype, ref.shape,
                                          ref.dtype)
    if ref.dtype.kind != "f":
        if not np.array_equal(got, ref):
            return "%d of %d elements differ" % (int((got != ref).sum()),
                                                 ref.size)
        return None
    if not np.array_equal(np.isnan(got), np.isnan(ref)):
        return "NaN at %d places, expected %d" % (int(np.isnan(got).sum()),
                                                  int(np.isnan(ref).sum()))
    inf = np.isinf(ref)
    if not np.array_equal(inf, np.isinf(got)) or \
            not np.array_equal(ref[inf], got[inf]):
        return "infinities differ"
    fin = np.isfinite(ref)
    if fin.any():
        r, g = ref[fin].astype(np.float64), got[fin].astype(np.float64)
        scale = float(np.max(np.abs(r))) or 1.0
        err = float(np.max(np.abs(g - r))) / scale
        if err > rtol:
            return "max_rel_err %.3g" % err
    return None
