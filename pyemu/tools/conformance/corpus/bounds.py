"""The OpenCL specification's accuracy requirements, per built-in.

FLOAT and DOUBLE are the maximum errors in ulp of OpenCL 1.2, section 7.4
(tables 7.1 and 7.2: the full profile, default build options).  Where a
function's bound is 0 the result is exact or correctly rounded.

Comparing two implementations, each of which may be N ulp from the true
result (in opposite directions), the corpus allows 2N between pyemu and PoCL
(compare.Ulp's pair_factor); against a float64 NumPy reference, N.

What the table does not bound, and what the corpus does instead:

- mad: "any" accuracy (a correctly rounded fma, or a*b rounded then + c
  rounded, are both allowed).  The mad case uses positive operands, where
  both are within 1 ulp of the exact result: 1 ulp against the reference.
- lgamma, lgamma_r: "undefined".  Held to tgamma's 16 ulp, on inputs away
  from lgamma's zeros at 1 and 2.
- native_*: "implementation-defined".  Held to the half_* bound, 8192 ulp,
  on the half_ functions' input ranges.
- geometric functions (first given in OpenCL 2.0 / 3.0, section 7.4):
  length <= 0.25 + 0.5n ulp, distance <= 2.5 + 2n ulp, normalize <= 2 + n
  ulp for vectors of n components; dot has the absolute tolerance
  max*max*(2n-1)*FLT_EPSILON and cross max*max*3*FLT_EPSILON per
  component, max being the largest operand magnitude; fast_length,
  fast_distance and fast_normalize use half_sqrt / half_rsqrt: 8192 ulp.
- common functions (same table): degrees, radians 2 ulp; clamp, max, min,
  sign, step exact; mix absolute 1e-3; smoothstep absolute 1e-5.
"""
from __future__ import annotations

FLT_EPSILON = 2.0 ** -23

FLOAT = {
    # operators
    "+": 0, "-": 0, "*": 0, "/": 2.5, "1/x": 2.5,
    # math functions
    "acos": 4, "acosh": 4, "acospi": 5, "asin": 4, "asinh": 4, "asinpi": 5,
    "atan": 5, "atan2": 6, "atanh": 5, "atanpi": 5, "atan2pi": 6,
    "cbrt": 2, "ceil": 0, "copysign": 0, "cos": 4, "cosh": 4, "cospi": 4,
    "erfc": 16, "erf": 16, "exp": 3, "exp2": 3, "exp10": 3, "expm1": 3,
    "fabs": 0, "fdim": 0, "floor": 0, "fma": 0, "fmax": 0, "fmin": 0,
    "fmod": 0, "fract": 0, "frexp": 0, "hypot": 4, "ilogb": 0, "ldexp": 0,
    "log": 3, "log2": 3, "log10": 3, "log1p": 2, "logb": 0,
    "maxmag": 0, "minmag": 0, "modf": 0, "nan": 0, "nextafter": 0,
    "pow": 16, "pown": 16, "powr": 16, "remainder": 0, "remquo": 0,
    "rint": 0, "rootn": 16, "round": 0, "rsqrt": 2,
    "sin": 4, "sincos": 4, "sinh": 4, "sinpi": 4, "sqrt": 3,
    "tan": 5, "tanh": 5, "tanpi": 6, "tgamma": 16, "trunc": 0,
    # -cl-fp32-correctly-rounded-divide-sqrt
    "/ (correctly rounded)": 0, "sqrt (correctly rounded)": 0,
    # half_ functions: all 8192 ulp
    "half": 8192,
    # our choices where the specification gives no number (see above)
    "native": 8192, "lgamma": 16, "lgamma_r": 16, "mad": 1,
    # common functions
    "degrees": 2, "radians": 2, "clamp": 0, "max": 0, "min": 0, "sign": 0,
    "step": 0,
}

DOUBLE = dict(FLOAT)
DOUBLE.update({"/": 0, "1/x": 0, "sqrt": 0})

ABSOLUTE = {"mix": 1e-3, "smoothstep": 1e-5}


def ulp(name: str, precision: str = "float") -> float:
    """The bound for built-in `name` ('half_sin' and 'native_sin' count as
    the half and native families)."""
    table = DOUBLE if precision == "double" else FLOAT
    if name.startswith("half_"):
        return table["half"]
    if name.startswith("native_"):
        return table["native"]
    return table[name]


def geometric_ulp(name: str, n: int) -> float:
    """length, distance, normalize of n-component vectors; fast_* = 8192."""
    if name.startswith("fast_"):
        return FLOAT["half"]
    return {"length": 0.25 + 0.5 * n, "distance": 2.5 + 2 * n,
            "normalize": 2 + n}[name]
