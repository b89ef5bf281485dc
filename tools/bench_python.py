#!/usr/bin/env python3
"""Python binding overhead: host time per call of clpool.max_pool on pyopencl arrays against the bare C
enqueue (clpool_enqueue_maxpool with arguments prepared once, called through ctypes, its event released),
with a new output buffer per call (as the API returns a new array) and into one preallocated output; and
of clpool.max_pool on numpy arrays against the blocking C helper clpool_maxpool_host on the same context
(arguments prepared once, a new numpy output per call on both sides).

Tiny MaxPool (1x1x4x4 float32, 2x2/s2) so that the op itself costs next to nothing; only the enqueue loop is
timed (the queue is drained between batches, outside the clock). Prints medians over rounds.

    python3 tools/bench_python.py [--calls 200] [--rounds 31]
"""
import argparse
import ctypes
import ctypes.util
import statistics
import time
from ctypes import byref, c_void_p

import numpy as np
import pyopencl as cl
import pyopencl.array as cla

import clpool
from clpool import _lib


def per_call_us(fn, calls, rounds, queue):
    samples = []
    for _ in range(rounds):
        queue.finish()
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        samples.append((time.perf_counter() - t0) / calls * 1e6)
    queue.finish()
    return statistics.median(samples)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--calls", type=int, default=200, help="calls per timed batch")
    ap.add_argument("--rounds", type=int, default=31, help="batches; the median is reported")
    args = ap.parse_args()

    device = next(d for p in cl.get_platforms() for d in p.get_devices())
    queue = cl.CommandQueue(cl.Context([device]))
    x = cla.to_device(queue, np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4))
    x.events.clear()  # the upload is done: no wait list on either side
    queue.finish()

    def api():
        return clpool.max_pool(x, [2, 2], strides=[2, 2])

    # The bare C call: everything prepared once, as a C caller holding its buffers would.
    ctx = clpool.Context.from_pyopencl(queue)
    params = _lib.MaxPoolParams()
    kernel = (ctypes.c_int64 * 2)(2, 2)
    _lib.check(_lib.lib.clpool_maxpool_params_init(byref(params), 2, kernel))
    params.strides[0] = params.strides[1] = 2
    shape = _lib.shape_of(x.shape)
    y = cla.empty(queue, (1, 1, 2, 2), np.float32)
    opencl = ctypes.CDLL(ctypes.util.find_library("OpenCL") or "libOpenCL.so.1")
    opencl.clReleaseEvent.argtypes = [c_void_p]
    event = c_void_p()
    enqueue, release = _lib.lib.clpool_enqueue_maxpool, opencl.clReleaseEvent
    handle, q, xin, yout = ctx.handle, queue.int_ptr, x.base_data.int_ptr, y.base_data.int_ptr
    pparams, pshape, pevent = byref(params), byref(shape), byref(event)

    def bare():
        enqueue(handle, q, pparams, 1, pshape, xin, 0, yout, 0, None, 0, 0, None, pevent)
        release(event)

    # The same plus a fresh output cl_mem per call, as clpool.max_pool returns a new array: the driver's
    # cost of a new buffer (PoCL allocates it at its first use) is then on both sides.
    opencl.clCreateBuffer.argtypes = [c_void_p, ctypes.c_uint64, ctypes.c_size_t, c_void_p, c_void_p]
    opencl.clCreateBuffer.restype = c_void_p
    opencl.clReleaseMemObject.argtypes = [c_void_p]
    create, release_mem, cl_context = opencl.clCreateBuffer, opencl.clReleaseMemObject, queue.context.int_ptr

    def bare_new_output():
        out = create(cl_context, 1, 16, None, None)  # CL_MEM_READ_WRITE, 2x2 float32
        enqueue(handle, q, pparams, 1, pshape, xin, 0, out, 0, None, 0, 0, None, pevent)
        release(event)
        release_mem(out)

    # The numpy path: the blocking helper on both sides, one context.
    hctx = clpool.Context.from_pyopencl(queue)
    xh = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    host, hhandle, xptr = _lib.lib.clpool_maxpool_host, hctx.handle, xh.ctypes.data

    def numpy_api():
        return clpool.max_pool(xh, [2, 2], strides=[2, 2], ctx=hctx)

    def bare_host():
        yh = np.empty((1, 1, 2, 2), np.float32)
        host(hhandle, pparams, 1, pshape, xptr, yh.ctypes.data, None)

    version = _lib.lib.clpool_version_number

    fns = {"api": api, "bare": bare, "bare_new_output": bare_new_output, "numpy_api": numpy_api,
           "bare_host": bare_host}
    for fn in fns.values():  # programs built, allocator warm
        per_call_us(fn, args.calls, 3, queue)
    np.testing.assert_array_equal(api().get(), [[[[5, 7], [13, 15]]]])
    np.testing.assert_array_equal(numpy_api(), [[[[5, 7], [13, 15]]]])

    floor = per_call_us(version, args.calls, args.rounds, queue)
    times = {name: [] for name in fns}
    for _ in range(3):  # interleaved, so drift on a shared machine hits all alike
        for name, fn in fns.items():
            times[name].append(per_call_us(fn, args.calls, args.rounds, queue))
    t = {name: statistics.median(v) for name, v in times.items()}
    print(f"device: {device.platform.name} / {device.name}")
    print(f"clpool.max_pool on pyopencl arrays:                   {t['api']:6.1f} us per call")
    print(f"bare C enqueue, new output cl_mem per call:           {t['bare_new_output']:6.1f} us per call")
    print(f"bare C enqueue into one preallocated output:          {t['bare']:6.1f} us per call")
    print(f"ctypes call floor (clpool_version_number):            {floor:6.2f} us")
    print(f"Python overhead per call: {t['api'] - t['bare_new_output']:.1f} us over the C call with a new output "
          f"({t['api'] - t['bare']:.1f} us over the preallocated one); goal <= 20 us")
    print(f"clpool.max_pool on numpy arrays:                      {t['numpy_api']:6.1f} us per call")
    print(f"bare clpool_maxpool_host:                             {t['bare_host']:6.1f} us per call")
    print(f"numpy path overhead per call: {t['numpy_api'] - t['bare_host']:.1f} us over clpool_maxpool_host; "
          "goal <= 20 us")


if __name__ == "__main__":
    main()
