"""Property-based: every op called with random attribute values of random Python types (ints of any size,
floats, None, strings, bytes, lists of mixed types, numpy scalars and arrays, bools, sets) on small numpy
inputs either returns what the numpy reference computes or raises a clpool.Error, never another exception.
A wrong type alone raises the TypeError kind; well-typed arguments never do. Deterministic
(derandomize=True, no example database), so CI runs the same cases every time."""
import atexit
import numbers
import shutil
import tempfile

import numpy as np
import pytest

import clpool
import reference

pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, configuration, event, given, settings  # noqa: E402 (hypothesis is optional)
from hypothesis import strategies as st  # noqa: E402

# Hypothesis keeps caches in ./.hypothesis from collection on: a temporary directory instead, removed at exit, so
# that a run writes nothing beside the sources or into the build tree.
_HOME = tempfile.mkdtemp(prefix="clpool-hypothesis-")
atexit.register(shutil.rmtree, _HOME, ignore_errors=True)
configuration.set_hypothesis_home_dir(_HOME)

# 200 examples per op: a few tenths of a second each once their programs are built (PoCL builds each in about
# half a second on first use).
SETTINGS = settings(max_examples=200, deadline=None, derandomize=True, database=None,
                    suppress_health_check=list(HealthCheck))

RANK = 2
X = np.random.default_rng(0).standard_normal((1, 2, 5, 4)).astype(np.float32)
CLOSED = clpool.Context()
CLOSED.close()

# ------------------------------------------------------------------------------------------ strategies

NP_INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint64]


def np_ints(lo, hi):
    return st.builds(lambda t, v: t(v), st.sampled_from(NP_INTS), st.integers(max(lo, 0), max(hi, 0)))


JUNK = st.one_of(
    st.none(), st.floats(), st.text(max_size=3), st.binary(max_size=2), st.complex_numbers(max_magnitude=8),
    st.sampled_from([np.float32(2.0), np.float64(1.0), np.bool_(True), np.str_("2"), np.complex64(1), object(),
                     np.array([[1, 2]]), np.array([1.0, 2.0])]),
    st.frozensets(st.integers(1, 3), max_size=2), st.dictionaries(st.integers(1, 3), st.integers(1, 3), max_size=2))
ANY_INT = st.one_of(st.integers(), st.integers(-2 ** 80, 2 ** 80), st.booleans(), np_ints(0, 100))
SCALAR = st.one_of(ANY_INT, JUNK)


def items(lo, hi):
    return st.one_of(st.integers(lo, hi), st.integers(lo, hi), np_ints(lo, hi),
                     st.booleans() if lo <= 1 else st.integers(lo, hi))


def good_ints(lo, hi, length, optional=True):
    """Well-typed integer sequences of the right length: lists, tuples, int64 arrays (or None)."""
    good = st.lists(items(lo, hi), min_size=length, max_size=length)
    choices = [good, good, good.map(tuple), good.map(lambda v: np.array([int(i) for i in v], np.int64))]
    return st.one_of(st.none(), *choices) if optional else st.one_of(*choices)


def good_uniform_ints(lo, hi, length):
    """As good_ints (not optional), one value in every place, each place of its own integer type: the 2-D
    programs are built per kernel and stride, so equal values along both axes halve the windows drawn."""
    def typed(v):
        return st.sampled_from([v, np.int64(v), np.int32(v), np.uint8(v), np.uint64(v)] + ([True] if v == 1 else []))
    good = st.integers(lo, hi).flatmap(lambda v: st.lists(typed(v), min_size=length, max_size=length))
    return st.one_of(good, good, good.map(tuple), good.map(lambda v: np.array([int(i) for i in v], np.int64)))


def wild_ints(lo, hi, length):
    """Wrong lengths, ints of any size, mixed element types, scalars and strings."""
    return st.one_of(st.lists(items(lo, hi), max_size=2 * length + 1), st.lists(ANY_INT, min_size=length,
                                                                                 max_size=length),
                     st.lists(st.one_of(items(lo, hi), SCALAR), min_size=1, max_size=2 * length), SCALAR,
                     st.text(max_size=4))


GOOD_FLAG = st.one_of(st.integers(0, 1), st.booleans(), np_ints(0, 1))
WILD = st.one_of(SCALAR, st.lists(SCALAR, max_size=3))
# ctx= and wait_for= (no pyopencl events: the inputs are numpy arrays)
CTX_WAIT_FOR = st.sampled_from([{"ctx": None}, {"wait_for": None}, {"wait_for": []}, {"ctx": CLOSED}, {"ctx": 3},
                                {"ctx": "0"}, {"wait_for": 3}, {"wait_for": "ab"}, {"wait_for": [3]}])
# name: (well-typed values, anything). Well-typed kernels and strides stay within 1..2 and equal along both
# axes: the 2-D programs are built per kernel and stride (about half a second each on PoCL), and test_ops
# covers the values; this test covers the types.
SPEC = {
    "kernel_shape": (good_uniform_ints(1, 2, RANK), wild_ints(1, 3, RANK)),
    "strides": (st.one_of(st.none(), good_uniform_ints(1, 2, RANK)), wild_ints(1, 3, RANK)),
    "pads": (good_ints(0, 1, 2 * RANK), wild_ints(0, 2, 2 * RANK)),
    "dilations": (good_ints(1, 2, RANK), wild_ints(1, 2, RANK)),
    "ceil_mode": (GOOD_FLAG, WILD),
    "auto_pad": (st.sampled_from(["NOTSET", "NOTSET", "NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID", b"VALID"]),
                 st.one_of(WILD, st.sampled_from(["SAME", "notset", b"\xff"]))),
    # Mostly 0 and False: each (storage_order, return_indices) pair is a program of its own per geometry.
    "storage_order": (st.sampled_from([0, 0, False, np.int64(0), np.uint8(0), 1]), WILD),
    "count_include_pad": (GOOD_FLAG, WILD),
    # A few p values: LpPool builds a program per p class, and each build costs PoCL about half a second.
    "p": (st.sampled_from([1, 2, 3, 0.5, 2.5, 1.0, np.float32(2), np.int64(3), True]),
          st.one_of(st.floats(), st.integers(), WILD)),
    "return_indices": (st.sampled_from([False, False, 0, np.bool_(False), True, 1, np.bool_(True)]),
                       st.sampled_from([2, -1, None, "yes", 1.0, [True]])),
    "output_shape": (st.one_of(st.none(), st.tuples(st.just(1), st.just(2), st.integers(1, 7),
                                                    st.integers(1, 6)).map(list)),
                     wild_ints(1, 6, 4)),
    "indices_of": (st.sampled_from(["inferred", "output", "output"]),
                   st.one_of(WILD, st.sampled_from(["OUTPUT", b"output"]))),
    "kw": (st.just({}), CTX_WAIT_FOR),
}


@st.composite
def arguments(draw, names):
    """Well-typed values of the named arguments, none to two of them replaced by anything at all."""
    count = draw(st.sampled_from([0, 0, 1, 1, 2]))
    wild = draw(st.lists(st.sampled_from(names), min_size=count, max_size=count, unique=True))
    return {n: draw(SPEC[n][1] if n in wild else SPEC[n][0]) for n in names}


WINDOW = ["kernel_shape", "strides", "pads", "dilations", "ceil_mode", "auto_pad"]


# ------------------------------------------------------------------------------------ the expectation model

def is_int(v):
    return isinstance(v, (int, np.integer))  # a Python bool is an int; a numpy bool is not


def is_ints(v):
    if isinstance(v, np.ndarray):
        return v.ndim == 1 and v.dtype.kind in "iu"
    return isinstance(v, (list, tuple)) and all(is_int(e) for e in v)


def ints(v):
    return None if v is None else [int(e) for e in (v.tolist() if isinstance(v, np.ndarray) else v)]


def is_real(v):
    if isinstance(v, np.ndarray) and v.ndim == 0:
        v = v[()]
    return isinstance(v, numbers.Real)


def past_float64(v):
    try:
        float(v)
    except OverflowError:
        return True
    return False


def common_problems(kw):
    """(type problems, known value problems) of ctx= and wait_for=."""
    types, values = [], []
    ctx, wait_for = kw.get("ctx"), kw.get("wait_for")
    if ctx is not None and not isinstance(ctx, clpool.Context):
        types.append("ctx")
    elif ctx is CLOSED:
        values.append("closed ctx")
    if wait_for is not None and (isinstance(wait_for, (str, bytes)) or not isinstance(wait_for, list)
                                 or wait_for):
        types.append("wait_for")  # no pyopencl events are generated: any element is of the wrong type
    return types, values


def window_problems(w):
    types = [k for k in ("kernel_shape", "strides", "pads", "dilations")
             if not (w[k] is None and k != "kernel_shape") and not is_ints(w[k])]
    if not is_int(w["ceil_mode"]):
        types.append("ceil_mode")
    if not isinstance(w["auto_pad"], (str, bytes)):
        types.append("auto_pad")
    return types


def window_args(w):
    auto_pad = w["auto_pad"].decode() if isinstance(w["auto_pad"], bytes) else w["auto_pad"]
    return dict(strides=ints(w["strides"]), pads=ints(w["pads"]), dilations=ints(w["dilations"]),
                ceil_mode=int(w["ceil_mode"]), auto_pad=auto_pad)


def flag_problems(a, names):
    return [n for n in names if not is_int(a[n])]


def check_error(e, types, values):
    """A failure: a lone wrong type raises the TypeError kind, well-typed arguments never do."""
    event(f"raised {type(e).__name__}")
    if types and not values:
        assert isinstance(e, TypeError), f"wrong types {types} raised {e!r}"
    elif not types:
        assert not isinstance(e, TypeError), f"well-typed arguments raised {e!r}"


def run(call, types, values):
    """The call's outcome checked against the model; every failure must be a clpool.Error (any other
    exception fails the test). Returns the result, or None after an error."""
    try:
        got = call()
    except clpool.Error as e:
        check_error(e, types, values)
        return None
    assert not types and not values, f"accepted wrong types {types} / values {values}"
    event("returned")
    return got


# ------------------------------------------------------------------------------------------------- tests

@SETTINGS
@given(a=arguments(WINDOW + ["storage_order", "return_indices", "kw"]))
def test_max_pool_properties(a):
    kw, return_indices = a.pop("kw"), a["return_indices"]
    types, values = common_problems(kw)
    types += window_problems(a) + flag_problems(a, ["storage_order"])
    if isinstance(return_indices, (bool, np.bool_)) or is_int(return_indices):
        if int(return_indices) not in (0, 1):
            values.append("return_indices")
    else:
        types.append("return_indices")
    got = run(lambda: clpool.max_pool(X, **a, **kw), types, values)
    if got is None:
        return
    y, idx = got if return_indices else (got, None)
    want_y, want_i = reference.maxpool(X, ints(a["kernel_shape"]), storage_order=int(a["storage_order"]),
                                       **window_args(a))
    np.testing.assert_array_equal(y, want_y)
    if return_indices:
        np.testing.assert_array_equal(idx, want_i)


@SETTINGS
@given(a=arguments(WINDOW + ["count_include_pad", "kw"]))
def test_average_pool_properties(a):
    kw = a.pop("kw")
    types, values = common_problems(kw)
    types += window_problems(a) + flag_problems(a, ["count_include_pad"])
    got = run(lambda: clpool.average_pool(X, **a, **kw), types, values)
    if got is not None:
        want = reference.sum_pool(X, ints(a["kernel_shape"]), count_include_pad=int(a["count_include_pad"]),
                                  **window_args(a))
        np.testing.assert_allclose(got, want.astype(np.float32), rtol=1e-5, atol=1e-6, equal_nan=True)


def p_problems(p, types, values):
    if not is_real(p):
        types.append("p")
    elif past_float64(p):
        values.append("p past float64")


@SETTINGS
@given(a=arguments(WINDOW + ["p", "kw"]))
def test_lp_pool_properties(a):
    kw = a.pop("kw")
    types, values = common_problems(kw)
    types += window_problems(a)
    p_problems(a["p"], types, values)
    got = run(lambda: clpool.lp_pool(X, **a, **kw), types, values)
    if got is not None and 0.25 <= float(a["p"]) <= 8:  # far outside, float64 itself over- or underflows
        want = reference.sum_pool(X, ints(a["kernel_shape"]), lp=True, p=float(a["p"]), **window_args(a))
        np.testing.assert_allclose(got, want.astype(np.float32), rtol=1e-4, atol=1e-6)


def unpool_inputs(a, types):
    """x (1, 2, 2, 2) and indices spread over the planes the attributes make (those of a 5 x 4 input where
    they make none), so that many cases succeed."""
    x = np.arange(1, 9, dtype=np.float32).reshape(1, 2, 2, 2)
    space = (5, 4)
    if not types and [len(ints(a[k]) or [0] * n) for k, n in (("kernel_shape", 2), ("strides", 2),
                                                              ("pads", 4))] == [2, 2, 4]:
        inferred = reference.unpool_inferred_shape(x.shape, ints(a["kernel_shape"]), ints(a["strides"]),
                                                   ints(a["pads"]))
        out = ints(a["output_shape"]) or inferred
        plane = inferred if a["indices_of"] == "inferred" else out
        if plane is not None and len(plane) == 4 and min(plane[2:]) >= 1 and plane[2] * plane[3] >= 4:
            space = tuple(plane[2:])
    size = space[0] * space[1]
    positions = np.linspace(0, size - 1, 4).astype(np.int64)  # 4 distinct positions of each plane
    return x, (positions + np.arange(2)[:, None] * size).reshape(x.shape)


@SETTINGS
@given(a=arguments(["kernel_shape", "strides", "pads", "output_shape", "indices_of", "kw"]))
def test_max_unpool_properties(a):
    kw = a.pop("kw")
    types, values = common_problems(kw)
    types += window_problems(dict(a, dilations=None, ceil_mode=0, auto_pad="NOTSET"))
    if a["output_shape"] is not None and not is_ints(a["output_shape"]):
        types.append("output_shape")
    if not isinstance(a["indices_of"], str):
        types.append("indices_of")

    x, idx = unpool_inputs(a, types)

    def want():
        return reference.max_unpool(x, idx, ints(a["kernel_shape"]), ints(a["strides"]), ints(a["pads"]),
                                    ints(a["output_shape"]), a["indices_of"])
    try:
        got = clpool.max_unpool(x, idx, **a, **kw)
    except clpool.Error as e:
        check_error(e, types, values)
        if "(n, c) plane" in str(e) and not types and not values:
            assert want()[1] > 0  # numpy inputs refuse skipped indices: only where the reference skips some
        return
    assert not types and not values, f"accepted wrong types {types} / values {values}"
    event("returned")
    y, skipped = want()
    assert skipped == 0
    np.testing.assert_array_equal(got, y)


@SETTINGS
@given(which=st.sampled_from(["max", "average", "lp"]), a=arguments(["p", "kw"]))
def test_global_pool_properties(which, a):
    kw, p = a["kw"], a["p"]
    types, values = common_problems(kw)
    if which == "lp":
        p_problems(p, types, values)
        call = lambda: clpool.global_lp_pool(X, p=p, **kw)  # noqa: E731
    else:
        call = lambda: getattr(clpool, f"global_{which}_pool")(X, **kw)  # noqa: E731
    got = run(call, types, values)
    if got is None or (which == "lp" and not 0.25 <= float(p) <= 8):
        return
    want = reference.global_pool(X, which, float(p)) if which == "lp" else reference.global_pool(X, which)
    np.testing.assert_allclose(got, want.astype(np.float32), rtol=1e-5, atol=1e-6)


# A float, an unsigned integer (negative Python ints do not fit) and float16 (1e5 rounds to infinity).
MAX_DTYPES = [np.dtype(np.float32), np.dtype(np.uint8), np.dtype(np.float16)]
SHAPES = [(2, 3), (3,), (1, 3), ()]


@st.composite
def max_inputs(draw):
    dtype = draw(st.sampled_from(MAX_DTYPES))
    count = draw(st.integers(1, 3))
    items = []
    for _ in range(count):
        kind = draw(st.sampled_from(["array", "array", "python", "python", "numpy", "junk"]))
        if kind == "array":
            shape = draw(st.sampled_from(SHAPES))
            data = draw(st.lists(st.integers(-100, 100), min_size=int(np.prod(shape)),
                                 max_size=int(np.prod(shape))))
            values = np.array(data).reshape(shape)
            items.append(np.abs(values).astype(dtype) if dtype.kind == "u" else values.astype(dtype))
        elif kind == "python":
            items.append(draw(st.one_of(st.integers(-300, 300), st.integers(), st.floats(), st.booleans(),
                                        st.floats(-1e6, 1e6))))
        elif kind == "numpy":
            t = draw(st.sampled_from([dtype, dtype, np.dtype(np.float64), np.dtype(np.int16)]))
            items.append(np.array(draw(st.integers(0, 100))).astype(t)[()])
        else:
            items.append(draw(st.one_of(st.none(), st.text(max_size=2), st.complex_numbers(max_magnitude=4),
                                        st.just(object()), st.just([1, "a"]))))
    return dtype, items


def max_expectation(items):
    """(type problems, value problems, dtype) of Max's inputs: the dtype is the first array's (or numpy
    scalar's), which Python scalars take as numpy (NEP 50) takes them."""
    types, values = [], []
    is_python = [isinstance(v, (int, float)) and not isinstance(v, np.generic) for v in items]
    arrays = [v for v, p in zip(items, is_python) if not p]
    typed = [v for v in arrays if isinstance(v, (np.ndarray, np.generic))]
    if not arrays:
        types.append("no array")
    if len(typed) < len(arrays):
        types.append("not an array")
    dtype = typed[0].dtype if typed else None
    if any(v.dtype != dtype for v in typed):
        types.append("dtypes differ")
    if dtype is None:
        return types, values, dtype
    for v, p in zip(items, is_python):
        if not p:
            continue
        if isinstance(v, float) and dtype.kind in "iu":
            types.append("float with integer arrays")
        elif dtype.kind in "iu":
            info = np.iinfo(dtype)
            if not info.min <= v <= info.max:
                values.append("int outside the dtype")
        else:
            try:
                f = float(v)
            except OverflowError:
                values.append("int past float64")
                continue
            with np.errstate(over="ignore"):
                if np.isfinite(f) and not np.isfinite(np.array(f, dtype).astype(np.float64)):
                    values.append("rounds to infinity")
    return types, values, dtype


@SETTINGS
@given(case=max_inputs())
def test_max_properties(case):
    items = case[1]
    types, values, dtype = max_expectation(items)
    got = run(lambda: clpool.max(*items), types, values)
    if got is None:
        return
    arrays = [np.asarray(v) if not isinstance(v, (int, float)) or isinstance(v, np.generic)
              else np.array(v, dtype) for v in items]
    want = reference.elementwise_max(*arrays)
    assert got.dtype == dtype
    np.testing.assert_array_equal(got, want)
