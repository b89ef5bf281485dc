"""Views: every op takes numpy and pyopencl arrays of any strides without copying them
(channels-last, stepped, reversed), give the contiguous call's results bit for bit with outputs in the
input's memory order, and refuse strides that are not whole elements and numpy outputs with gaps."""
import numpy as np
import pytest

import clpool

RNG = np.random.default_rng(11)
NHWC = RNG.standard_normal((2, 9, 8, 24)).astype(np.float32)
CHANNELS_LAST = NHWC.transpose(0, 3, 1, 2)  # logical N x C x H x W, C's stride one element
TO_NHWC = (0, 2, 3, 1)

# name: a call taking the input and keywords (MaxPool's Indices too)
OPS = {
    "max_pool": lambda x, **kw: clpool.max_pool(x, [3, 3], strides=[2, 2], pads=[1, 1, 1, 1], storage_order=1,
                                                return_indices=True, **kw),
    "average_pool": lambda x, **kw: clpool.average_pool(x, [3, 2], pads=[1, 0, 1, 1], count_include_pad=1, **kw),
    "lp_pool": lambda x, **kw: clpool.lp_pool(x, [2, 2], strides=[2, 1], p=3, **kw),
}


def results(r):
    return r if isinstance(r, tuple) else (r,)


@pytest.mark.parametrize("op", [pytest.param("max_pool", marks=pytest.mark.portability), "average_pool", "lp_pool"])
def test_numpy_channels_last(op):
    got, want = results(OPS[op](CHANNELS_LAST)), results(OPS[op](np.ascontiguousarray(CHANNELS_LAST)))
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
        assert g.transpose(TO_NHWC).flags.c_contiguous  # the input's memory order: channels-last


@pytest.mark.parametrize("op", list(OPS))
def test_numpy_stepped_and_reversed(op):
    x = RNG.standard_normal((2, 5, 21, 22)).astype(np.float32)[:, ::2, ::-3, 1::2]
    for g, w in zip(results(OPS[op](x)), results(OPS[op](np.ascontiguousarray(x)))):
        np.testing.assert_array_equal(g, w)


def test_numpy_out_in_any_axis_order():
    want = clpool.average_pool(np.ascontiguousarray(CHANNELS_LAST), [2, 2])
    out = np.empty(want.shape, np.float32).transpose(0, 1, 3, 2).copy().transpose(0, 1, 3, 2)  # H and W swapped
    assert clpool.average_pool(CHANNELS_LAST, [2, 2], out=out) is out
    np.testing.assert_array_equal(out, want)
    gapped = np.empty(want.shape[:-1] + (2 * want.shape[-1],), np.float32)[..., ::2]
    with pytest.raises(clpool.InvalidArgumentError, match=r"^out of shape .* has gaps or repeats"):
        clpool.average_pool(CHANNELS_LAST, [2, 2], out=gapped)


def test_strides_not_whole_elements_are_refused():
    odd = np.lib.stride_tricks.as_strided(np.zeros(64, np.float32), shape=(1, 1, 3, 3), strides=(4, 4, 6, 4))
    with pytest.raises(clpool.InvalidArgumentError, match=r"^x has strides \(4, 4, 6, 4\) \(bytes\), not multiples "
                                                          r"of its item size 4$"):
        clpool.max_pool(odd, [2, 2])


@pytest.mark.portability
@pytest.mark.parametrize("op", list(OPS))
def test_pyopencl_channels_last(queue, op):
    import pyopencl.array as cla
    x = cla.to_device(queue, NHWC).transpose((0, 3, 1, 2))
    assert not x.flags.c_contiguous
    want = results(OPS[op](np.ascontiguousarray(CHANNELS_LAST)))
    for g, w in zip(results(OPS[op](x)), want):
        assert g.transpose(TO_NHWC).flags.c_contiguous  # channels-last like the input: read it as NHWC
        np.testing.assert_array_equal(g.transpose(TO_NHWC).get(), w.transpose(TO_NHWC))


def test_pyopencl_out_with_strides(queue):
    import pyopencl.array as cla
    want = clpool.lp_pool(np.ascontiguousarray(CHANNELS_LAST), [2, 2], p=2)
    wide = cla.zeros(queue, want.shape[:-1] + (2 * want.shape[-1],), np.float32)
    got = clpool.lp_pool(cla.to_device(queue, NHWC).transpose((0, 3, 1, 2)), [2, 2], p=2, out=wide[..., ::2])
    assert got.base_data is wide.base_data
    host = wide.get()
    np.testing.assert_array_equal(host[..., ::2], want)
    assert not host[..., 1::2].any()  # the gaps untouched


@pytest.mark.parametrize("op", ["global_max_pool", "global_average_pool", "global_lp_pool"])
def test_global_pools(queue, op):
    import pyopencl.array as cla
    f = getattr(clpool, op)
    want = f(np.ascontiguousarray(CHANNELS_LAST))
    got_np, got_cl = f(CHANNELS_LAST), f(cla.to_device(queue, NHWC).transpose((0, 3, 1, 2)))
    if op == "global_max_pool":  # the same maxima; the sums follow the window's order on views
        np.testing.assert_array_equal(got_np, want)
    np.testing.assert_allclose(got_np, want, rtol=1e-5)
    np.testing.assert_array_equal(got_cl.transpose(TO_NHWC).get(), got_np.transpose(TO_NHWC))


UNPOOL = {"kernel_shape": [2, 2], "strides": [2, 2], "output_shape": CHANNELS_LAST.shape, "indices_of": "output"}


def unpool_pair():
    """A channels-last MaxPool output and its Indices, and the contiguous round trip's result."""
    y, i = clpool.max_pool(np.ascontiguousarray(CHANNELS_LAST), [2, 2], strides=[2, 2], return_indices=True)
    want = clpool.max_unpool(y, i, **UNPOOL)
    return y.transpose(TO_NHWC).copy().transpose(0, 3, 1, 2), i.transpose(TO_NHWC).copy().transpose(0, 3, 1, 2), want


def test_max_unpool_numpy_views():
    y, i, want = unpool_pair()
    got = clpool.max_unpool(y, i, **UNPOOL)
    np.testing.assert_array_equal(got, want)
    assert got.transpose(TO_NHWC).flags.c_contiguous  # x's memory order: channels-last
    out = np.empty(want.shape, np.float32).transpose(0, 1, 3, 2).copy().transpose(0, 1, 3, 2)  # H and W swapped
    assert clpool.max_unpool(y[..., ::-1], i[..., ::-1], **UNPOOL, out=out) is out  # W reversed
    np.testing.assert_array_equal(out, want)
    bad = i.copy()
    bad[0, 0, 0, 0] = -1
    with pytest.raises(clpool.InvalidArgumentError, match=r"^1 index lies outside its \(n, c\) plane of the output$"):
        clpool.max_unpool(y, bad, **UNPOOL)
    with pytest.raises(clpool.InvalidArgumentError, match=r"^out overlaps an input$"):
        clpool.max_unpool(y, i, [1, 1], out=y)


@pytest.mark.portability
def test_max_unpool_pyopencl_views(queue):
    import pyopencl.array as cla
    y, i, want = unpool_pair()
    ty = cla.to_device(queue, y.transpose(TO_NHWC)).transpose((0, 3, 1, 2))
    ti = cla.to_device(queue, i.transpose(TO_NHWC)).transpose((0, 3, 1, 2))
    counter = cla.zeros(queue, 1, np.uint32)
    got = clpool.max_unpool(ty, ti, **UNPOOL, skipped=counter)
    assert got.transpose(TO_NHWC).flags.c_contiguous
    np.testing.assert_array_equal(got.transpose(TO_NHWC).get(), want.transpose(TO_NHWC))
    assert counter.get()[0] == 0
    wide = cla.zeros(queue, want.shape[:-1] + (2 * want.shape[-1],), np.float32)
    assert clpool.max_unpool(ty, ti, **UNPOOL, out=wide[..., ::2]).base_data is wide.base_data
    host = wide.get()
    np.testing.assert_array_equal(host[..., ::2], want)
    assert not host[..., 1::2].any()  # the gaps untouched


# Max: integer-valued data (no -0.0: numpy.maximum and ONNX's Max differ on its ties)
MAX_X = RNG.integers(-9, 9, size=(2, 7, 5, 6)).astype(np.float32)
MAX_BIAS = RNG.integers(-9, 9, size=(1, 6, 1, 1)).astype(np.float32)


def test_max_numpy_views():
    cl = MAX_X.transpose(0, 3, 1, 2)  # channels-last: logical 2 x 6 x 7 x 5
    got = clpool.max(cl, MAX_BIAS)
    np.testing.assert_array_equal(got, np.maximum(cl, MAX_BIAS))
    assert got.transpose(TO_NHWC).flags.c_contiguous  # the first input's memory order
    odd = cl[:, ::-1, ::2, 1:]  # reversed, stepped
    np.testing.assert_array_equal(clpool.max(odd, MAX_BIAS[:, ::-1], 2.5, odd), np.maximum(np.maximum(odd, MAX_BIAS[:, ::-1]), 2.5))
    out = np.empty((2, 7, 5, 6), np.float32).transpose(0, 3, 1, 2)  # dense, channels-last
    assert clpool.max(np.ascontiguousarray(cl), MAX_BIAS, out=out) is out
    np.testing.assert_array_equal(out, np.maximum(cl, MAX_BIAS))
    with pytest.raises(clpool.InvalidArgumentError, match=r"^out of shape \(2, 6, 7, 5\) and strides .* has gaps or "
                                                          r"repeats"):
        clpool.max(cl, MAX_BIAS, out=np.empty((2, 6, 7, 10), np.float32)[..., ::2])


@pytest.mark.portability
def test_max_pyopencl_views(queue):
    import pyopencl.array as cla
    x = cla.to_device(queue, MAX_X).transpose((0, 3, 1, 2))
    want = np.maximum(MAX_X.transpose(0, 3, 1, 2), MAX_BIAS)
    got = clpool.max(x, cla.to_device(queue, MAX_BIAS))
    assert got.transpose(TO_NHWC).flags.c_contiguous
    np.testing.assert_array_equal(got.transpose(TO_NHWC).get(), want.transpose(TO_NHWC))
    assert clpool.max(x, 3.0, out=x) is x  # in place on the channels-last view
    np.testing.assert_array_equal(x.transpose(TO_NHWC).get(), np.maximum(MAX_X, 3.0))
