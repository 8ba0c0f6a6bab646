"""How an output of a conformance case is compared.

Each comparator answers two questions about a buffer:

    pair(got, want)    pyemu's result (got) against PoCL's (want)
    ref(got, expect)   one side's result against a NumPy reference

and returns a Verdict: pass or fail, the worst error in the comparator's unit
(ulp, absolute, relative, or a count of differing elements) and the index of
the worst element, so a failure can name the inputs that produced it.

ulp are measured as the OpenCL specification defines them (section 7.4): the
difference in float64, divided by the spacing of floating-point numbers of
the result's precision at the reference value (PoCL's value for a pair).  NaN
equals NaN, and an infinity equals the infinity of the same sign.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional, Union

import numpy as np


@dataclass
class Verdict:
    ok: bool
    err: float              # worst error, in `unit`
    unit: str               # "ulp", "abs", "rel", "diff" (count), "text"
    bound: float            # what `err` had to stay within
    index: Optional[int]    # flat index of the worst element; None if none
    note: str = ""          # e.g. the first differing line of printf output

    def text(self) -> str:
        """The error as the table shows it: '1.5 ulp', '3e-07 abs', '0', '12 diff'."""
        if self.unit == "ulp":
            return "inf ulp" if np.isinf(self.err) else f"{self.err:.3g} ulp"
        if self.unit in ("abs", "rel"):
            return f"{self.err:.2g} {self.unit}"
        if self.unit == "text":
            return "same text" if self.ok else "text differs"
        return "0" if self.err == 0 else f"{int(self.err)} diff"


def _flat(a) -> np.ndarray:
    return np.ascontiguousarray(a).reshape(-1)


def _worst(err: np.ndarray):
    if err.size == 0:
        return 0.0, None
    i = int(np.argmax(err))
    return float(err[i]), i


def same_values(got, want) -> np.ndarray:
    """Elementwise: equal, or both NaN (floats); exactly equal (integers)."""
    g, w = _flat(got), _flat(want)
    if g.dtype.kind == "f" or w.dtype.kind == "f":
        with np.errstate(invalid="ignore"):
            g64, w64 = g.astype(np.float64), w.astype(np.float64)
        return (g64 == w64) | (np.isnan(g64) & np.isnan(w64))
    return g == w


def ulp_error(got, want, dtype) -> np.ndarray:
    """|got - want| in ulp of `dtype` (float32 or float64) at `want`, elementwise.

    Computed in float64 (for float32 results, exactly).  Equal values, two
    NaNs, or two infinities of the same sign are 0 ulp; a NaN or infinity
    against anything else is infinitely many."""
    g = _flat(got).astype(np.float64)
    w = _flat(want).astype(np.float64)
    with np.errstate(all="ignore"):
        same = (g == w) | (np.isnan(g) & np.isnan(w))
        finite = np.isfinite(g) & np.isfinite(w)
        step = np.spacing(np.abs(w).astype(dtype)).astype(np.float64)
        err = np.abs(g - w) / step
    err[~finite] = np.inf
    err[~np.isfinite(step)] = np.inf
    err[same] = 0.0
    return err


class Compare:
    """Base class: compare arrays elementwise by `measure`, pass if <= bound."""

    unit = "diff"
    what = ""               # the built-in or operation, for messages

    def _measure(self, got, want, inputs, bound_scale) -> Verdict:
        raise NotImplementedError

    def pair(self, got, want, inputs=None) -> Verdict:
        """pyemu's result against PoCL's."""
        return self._measure(got, want, inputs, "pair")

    def ref(self, got, expect, inputs=None) -> Verdict:
        """One side's result against the NumPy reference."""
        return self._measure(got, expect, inputs, "ref")

    def describe(self) -> str:
        return type(self).__name__


class Exact(Compare):
    """Equal element for element (NaN equals NaN): integers, and floats where
    the operation is exact or correctly rounded on both sides."""

    unit = "diff"

    def __init__(self, what: str = ""):
        self.what = what

    def _measure(self, got, want, inputs, mode) -> Verdict:
        g, w = _flat(got), _flat(want)
        if g.shape != w.shape:
            return Verdict(False, float(max(g.size, w.size)), "diff", 0, None, "sizes differ")
        if w.dtype != g.dtype:          # a reference computed in another type
            w = w.astype(g.dtype)
        bad = ~same_values(g, w)
        n = int(bad.sum())
        return Verdict(n == 0, float(n), "diff", 0, int(np.argmax(bad)) if n else None)

    def describe(self) -> str:
        return "exact"


class Ulp(Compare):
    """Within `spec` ulp of the true result, as the OpenCL specification
    allows the built-in `what`.  Against PoCL, which may itself be `spec` ulp
    away on the other side, the bound is `pair_factor * spec` (2N)."""

    unit = "ulp"

    def __init__(self, spec, what: str, pair_factor: float = 2.0):
        # spec: a number, or one per element (repeated to the output's length)
        self.spec = np.asarray(spec, np.float64) if np.ndim(spec) else float(spec)
        self.what = what
        self.pair_factor = pair_factor

    def bound(self, mode: str):
        if mode == "pair":
            return self.spec * self.pair_factor
        # against a float64 reference (itself rounded, to about 2^-29 ulp of
        # a float): a correctly rounded result is up to half an ulp away
        return np.maximum(self.spec, 0.5) + 2.0 ** -20

    def _measure(self, got, want, inputs, mode) -> Verdict:
        g = _flat(got)
        dtype = g.dtype if g.dtype.kind == "f" else np.float32
        want = _flat(want)
        if mode == "ref" and want.dtype != dtype:
            # a reference beyond the result type's range: what rounding gives
            with np.errstate(over="ignore"):
                rounded = want.astype(dtype)
            want = np.where(np.isinf(rounded) & np.isfinite(want), rounded, want)
        errs = ulp_error(g, want, dtype)
        bound = self.bound(mode)
        if np.ndim(bound):
            bound = np.resize(bound, errs.size)
            ratio, i = _worst(errs / bound)
            err = float(errs[i]) if i is not None else 0.0
            b = float(bound[i]) if i is not None else float(np.max(bound))
            return Verdict(ratio <= 1.0, err, "ulp", b, i if err > 0 else None)
        err, i = _worst(errs)
        return Verdict(err <= bound, err, "ulp", float(bound), i if err > 0 else None)

    def describe(self) -> str:
        if np.ndim(self.spec):
            return f"{self.what} <= {'/'.join(f'{v:g}' for v in np.unique(self.spec))} ulp"
        return f"{self.what} <= {self.spec:g} ulp"


Tolerance = Union[float, Callable[[dict], np.ndarray]]


class Abs(Compare):
    """|got - want| <= tol, where tol is a number or, computed from the case's
    inputs, an array (the spec's tolerances for dot and cross depend on the
    operands' magnitude).  Against PoCL the tolerance doubles."""

    unit = "abs"

    def __init__(self, tol: Tolerance, what: str, pair_factor: float = 2.0):
        self.tol = tol
        self.what = what
        self.pair_factor = pair_factor

    def _tolerance(self, inputs, mode):
        t = self.tol(inputs) if callable(self.tol) else self.tol
        t = _flat(np.asarray(t, np.float64)) if np.ndim(t) else float(t)
        sel = (inputs or {}).get("_select")
        if np.ndim(t) and sel is not None and t.size == np.size(sel):
            t = t[np.asarray(sel, bool).reshape(-1)]    # the elements compared (runner.py)
        return t * (self.pair_factor if mode == "pair" else 1.0)

    def _measure(self, got, want, inputs, mode) -> Verdict:
        g = _flat(got).astype(np.float64)
        w = _flat(want).astype(np.float64)
        tol = self._tolerance(inputs, mode)
        with np.errstate(all="ignore"):
            diff = np.abs(g - w)
        diff[same_values(g, w)] = 0.0
        diff[np.isnan(diff)] = np.inf
        ratio = diff / np.maximum(tol, np.finfo(np.float64).tiny)
        r, i = _worst(ratio)
        err = float(diff[i]) if i is not None else 0.0
        bound = float(np.max(tol)) if np.ndim(tol) else tol
        return Verdict(r <= 1.0, err, "abs", bound, i if err > 0 else None)

    def describe(self) -> str:
        return f"{self.what}: absolute tolerance"


class Rel(Compare):
    """|got - want| <= rtol * |want|: sums and dot products whose rounding
    depends on the order and on fused multiply-adds (FP_CONTRACT is on by
    default in OpenCL C, so a*b+c may become one fma on either side)."""

    unit = "rel"

    def __init__(self, rtol: float, what: str):
        self.rtol = rtol
        self.what = what

    def _measure(self, got, want, inputs, mode) -> Verdict:
        g = _flat(got).astype(np.float64)
        w = _flat(want).astype(np.float64)
        with np.errstate(all="ignore"):
            rel = np.abs(g - w) / np.maximum(np.abs(w), np.finfo(np.float32).tiny)
        rel[same_values(g, w)] = 0.0
        rel[np.isnan(rel)] = np.inf
        err, i = _worst(rel)
        return Verdict(err <= self.rtol, err, "rel", self.rtol, i if err > 0 else None)

    def describe(self) -> str:
        return f"{self.what}: relative {self.rtol:.2g}"


class Text(Compare):
    """printf output.  OpenCL leaves the order of different work-items'
    output unspecified, so by default both texts are compared as sorted
    lists of lines."""

    unit = "text"

    def __init__(self, sort_lines: bool = True):
        self.sort_lines = sort_lines
        self.what = "printf"

    def _lines(self, text: str):
        lines = text.splitlines()
        return sorted(lines) if self.sort_lines else lines

    def _measure(self, got, want, inputs, mode) -> Verdict:
        a, b = self._lines(got), self._lines(want)
        if a == b:
            return Verdict(True, 0.0, "text", 0, None)
        for k in range(max(len(a), len(b))):
            x = a[k] if k < len(a) else "<no line>"
            y = b[k] if k < len(b) else "<no line>"
            if x != y:
                return Verdict(False, 1.0, "text", 0, k, f"line {k}: got {x!r}, want {y!r}")
        return Verdict(False, 1.0, "text", 0, None)

    def describe(self) -> str:
        return "printf text"
