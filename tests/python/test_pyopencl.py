"""clpool inside a pyopencl pipeline: offsets, events and wait lists, one host wait at the end, and no
leaked memory or OpenCL references over 10,000 calls."""
import gc
import os

import numpy as np
import pytest

import clpool
from clpool._context import queue_context
import reference

cl = pytest.importorskip("pyopencl")
cla = pytest.importorskip("pyopencl.array")

FILL = """
__kernel void fill(__global float *big, ulong offset, uint n)
{
    uint i = get_global_id(0);
    if (i < n) big[offset + i] = (float)((i * 7919u) % 1001u) - 500.0f;
}
"""


def filled(n):
    """What the fill kernel writes: exact small integers, so every result is exact."""
    i = np.arange(n, dtype=np.uint64)
    return ((i * 7919) % 1001).astype(np.float32) - 500.0


def pipeline_queue(queue):
    """An out-of-order queue where the device offers one (events are then the only order), else in-order."""
    ooo = cl.command_queue_properties.OUT_OF_ORDER_EXEC_MODE_ENABLE
    props = ooo if queue.device.queue_properties & ooo else 0
    return cl.CommandQueue(queue.context, queue.device, properties=props)


def unpool_indices(shape):
    """MaxUnpool indices for x of `shape` (N, C, H, W) with kernel and strides 2: element (h, w) of each plane
    goes to (2h + w % 2, 2w + h % 2) of its (2H, 2W) plane."""
    n, c, h, w = shape
    hh, ww = np.meshgrid(np.arange(h), np.arange(w), indexing="ij")
    pos = (2 * hh + ww % 2) * 2 * w + 2 * ww + hh % 2
    return (np.arange(n * c)[:, None, None] * 4 * h * w + pos).astype(np.int64).reshape(shape)


UNPOOL_INDICES = unpool_indices((2, 3, 4, 5))


@pytest.mark.portability
@pytest.mark.parametrize("dependency", ["wait_for", "array_events"])
def test_pipeline_kernel_clpool_reduction_one_host_wait(queue, dependency):
    q = pipeline_queue(queue)
    shape = (2, 3, 17, 15)
    n, offset = int(np.prod(shape)), 37
    big = cla.empty(q, offset + n + 11, np.float32)
    fill = cl.Program(q.context, FILL).build().fill
    event = fill(q, (n,), None, big.base_data, np.uint64(offset), np.uint32(n), wait_for=big.events)
    x = big[offset:offset + n].reshape(shape)
    assert x.offset == offset * 4 and x.base_data is big.base_data
    x.events.clear()
    if dependency == "array_events":
        x.add_event(event)
    y, idx = clpool.max_pool(x, [3, 3], strides=[2, 2], pads=[1, 1, 1, 1], return_indices=True,
                             wait_for=[event] if dependency == "wait_for" else None)
    g = clpool.global_average_pool(y)
    m = clpool.max(y, g)  # broadcast [2,3,9,8] x [2,3,1,1]
    total = cla.sum(m)  # a pyopencl reduction consumes clpool's output through its events
    got_total = total.get()  # the one host wait
    assert all(e.command_execution_status == cl.command_execution_status.COMPLETE
               for e in y.events + m.events)
    # The inputs' own event lists are left as they were; each output carries the op's event.
    assert len(y.events) == 1 and y.events[0].int_ptr == idx.events[0].int_ptr
    assert len(x.events) == (1 if dependency == "array_events" else 0)
    want_y, want_idx = reference.maxpool(filled(n).reshape(shape), [3, 3], [2, 2], [1, 1, 1, 1])
    want_m = np.maximum(want_y, want_y.mean(axis=(2, 3), keepdims=True, dtype=np.float64).astype(np.float32))
    np.testing.assert_array_equal(y.get(), want_y)
    np.testing.assert_array_equal(idx.get(), want_idx)
    np.testing.assert_allclose(m.get(), want_m, rtol=1e-6)
    np.testing.assert_allclose(got_total, want_m.sum(dtype=np.float64), rtol=1e-5)


@pytest.mark.portability
@pytest.mark.parametrize("op", ["max_pool", "average_pool", "lp_pool", "max_unpool", "global_average_pool",
                                "global_lp_pool", "max"])
@pytest.mark.parametrize("dependency", ["wait_for", "array_events"])
def test_op_waits_for_the_inputs_events_and_wait_for(queue, dependency, op):
    """A user event gates the input: the op may not run before it completes, and then runs."""
    import time
    host = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)
    x, row = cla.to_device(queue, host), cla.to_device(queue, host[:, :1].copy())
    idx = cla.to_device(queue, UNPOOL_INDICES)
    queue.finish()
    gate = cl.UserEvent(queue.context)
    if dependency == "array_events":
        x.add_event(gate)
    call = {"max_pool": lambda **kw: clpool.max_pool(x, [2, 2], **kw),
            "average_pool": lambda **kw: clpool.average_pool(x, [2, 2], pads=[0, 0, 1, 1], count_include_pad=1, **kw),
            "lp_pool": lambda **kw: clpool.lp_pool(x, [3, 3], p=2, strides=[2, 1], **kw),
            "max_unpool": lambda **kw: clpool.max_unpool(x, idx, [2, 2], strides=[2, 2], **kw),
            "global_average_pool": lambda **kw: clpool.global_average_pool(x, **kw),
            "global_lp_pool": lambda **kw: clpool.global_lp_pool(x, p=1, **kw),
            "max": lambda **kw: clpool.max(x, row, **kw)}[op]
    try:
        y = call(wait_for=[gate] if dependency == "wait_for" else None)
        queue.flush()
        time.sleep(0.05)
        assert y.events[0].command_execution_status != cl.command_execution_status.COMPLETE
    finally:
        gate.set_status(cl.command_execution_status.COMPLETE)
    want = {"max_pool": lambda: reference.maxpool(host, [2, 2])[0],
            "average_pool": lambda: reference.sum_pool(host, [2, 2], pads=[0, 0, 1, 1], count_include_pad=1),
            "lp_pool": lambda: reference.sum_pool(host, [3, 3], lp=True, p=2, strides=[2, 1]),
            "max_unpool": lambda: reference.max_unpool(host, UNPOOL_INDICES, [2, 2], strides=[2, 2])[0],
            "global_average_pool": lambda: host.mean(axis=(2, 3), keepdims=True),
            "global_lp_pool": lambda: np.abs(host).sum(axis=(2, 3), keepdims=True),
            "max": lambda: np.maximum(host, host[:, :1])}[op]()
    np.testing.assert_allclose(y.get(), want, rtol=1e-6)


@pytest.mark.portability
def test_max_unpool_counter_waits_and_carries_the_ops_event(queue):
    """skipped= is read and written by the op: its events gate the op, and it carries the op's event, so a
    later read of it (here .get()) sees the count without an explicit wait."""
    import time
    host = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)
    bad = UNPOOL_INDICES.copy()
    bad.flat[[0, 7, 100]] = [-1, 2 ** 40, 80 * 6]  # before its plane, far past it, one past the last plane
    x, idx = cla.to_device(queue, host), cla.to_device(queue, bad)
    counter = cla.to_device(queue, np.array([1], np.uint32))
    queue.finish()
    gate = cl.UserEvent(queue.context)
    counter.add_event(gate)
    try:
        y = clpool.max_unpool(x, idx, [2, 2], strides=[2, 2], skipped=counter)
        queue.flush()
        time.sleep(0.05)
        assert y.events[0].command_execution_status != cl.command_execution_status.COMPLETE
    finally:
        gate.set_status(cl.command_execution_status.COMPLETE)
    assert counter.events[-1].int_ptr == y.events[0].int_ptr
    assert counter.get()[0] == 1 + 3
    want, skipped = reference.max_unpool(host, bad, [2, 2], strides=[2, 2])
    assert skipped == 3
    np.testing.assert_array_equal(y.get(), want)


@pytest.mark.portability
def test_adopted_context_is_made_once_per_queue_and_explicit_ctx_works(queue):
    x = cla.to_device(queue, np.arange(24, dtype=np.float32).reshape(1, 2, 3, 4))
    clpool.global_max_pool(x)
    adopted = queue._clpool_context
    clpool.max(x, x)
    assert queue._clpool_context is adopted
    ctx = clpool.Context.from_pyopencl(queue)
    assert ctx.device.name == queue.device.name
    np.testing.assert_array_equal(clpool.global_max_pool(x, ctx=ctx).get().ravel(), [11, 23])
    # A host-array call on the adopted context runs on the same device.
    np.testing.assert_array_equal(clpool.global_max_pool(x.get(), ctx=ctx).ravel(), [11, 23])


def resident_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def test_10000_calls_keep_memory_and_references_bounded(queue):
    rng = np.random.default_rng(11)
    host = rng.standard_normal((1, 2, 8, 8)).astype(np.float32)
    big = cla.to_device(queue, np.concatenate([np.zeros(5, np.float32), host.ravel()]))
    x = big[5:].reshape(host.shape)
    b = cla.to_device(queue, rng.standard_normal((1, 2, 1, 8)).astype(np.float32))
    idx = cla.to_device(queue, unpool_indices(host.shape))
    counter = cla.zeros(queue, 1, np.uint32)
    calls = [lambda: clpool.max_pool(x, [2, 2], strides=[2, 2], return_indices=True),
             lambda: clpool.global_average_pool(x),
             lambda: clpool.global_lp_pool(x, p=3),
             lambda: clpool.max_unpool(x, idx, [2, 2], strides=[2, 2]),
             lambda: clpool.average_pool(x, [3, 3], pads=[1, 1, 1, 1]),
             lambda: clpool.lp_pool(x, [2, 2], p=2, strides=[2, 1]),
             lambda: clpool.max_unpool(x, idx, [2, 2], strides=[2, 2], output_shape=[1, 2, 17, 16], skipped=counter),
             lambda: clpool.max(x, b)]  # the last call of both runs (999 and 9999 are 7 mod 8)

    def run(count):
        out = None
        for i in range(count):
            out = calls[i % len(calls)]()
            if i % 250 == 249:
                queue.finish()
        queue_context(queue).wait_builds()  # with tiers on, a build's job holds its first call's event till done
        queue.finish()
        counter.finish()  # its event list (up to 12 of the op's events, each holding the queue) emptied
        gc.collect()
        return out

    warm = run(1000)  # programs built, pools at their steady size; one output alive, as during the count
    mem, ctx_info, queue_info = cl.mem_info.REFERENCE_COUNT, cl.context_info.REFERENCE_COUNT, \
        cl.command_queue_info.REFERENCE_COUNT
    refs = (big.base_data.get_info(mem), b.base_data.get_info(mem), idx.base_data.get_info(mem),
            counter.base_data.get_info(mem), queue.get_info(queue_info), queue.context.get_info(ctx_info))
    rss = resident_bytes()
    del warm  # the last output stays alive instead: the same objects exist at both counts
    last = run(10000)
    grown = resident_bytes() - rss
    assert grown < 8 << 20, f"resident memory grew by {grown} bytes over 10,000 calls"
    assert refs == (big.base_data.get_info(mem), b.base_data.get_info(mem), idx.base_data.get_info(mem),
                    counter.base_data.get_info(mem), queue.get_info(queue_info), queue.context.get_info(ctx_info))
    np.testing.assert_array_equal(last.get(), np.maximum(host, b.get()))
    assert counter.get()[0] == 0
    # clpool keeps no reference to the op's event: once later commands used the same buffers (PoCL keeps
    # each buffer's last event), it has as many references as a plain pyopencl kernel's event.
    bump = cl.Program(queue.context, "__kernel void bump(__global float *a) { a[0] += 1.0f; }").build().bump
    plain = bump(queue, (1,), None, big.base_data)  # element 0 of big lies before x
    op = clpool.max(x, b).events[0]
    for buffer in (big.base_data, b.base_data):
        bump(queue, (1,), None, buffer)
    queue.finish()
    count = cl.event_info.REFERENCE_COUNT
    assert op.get_info(count) == plain.get_info(count)
