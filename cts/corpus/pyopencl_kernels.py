"""Runs pyopencl's kernel generators against the Clift platform, so that Clift (with
CLIFT_DUMP_SOURCES set by cts/tests/source_corpus.rs) records every program pyopencl
generates: element-wise array arithmetic, comparisons and casts, reductions (sum, dot, min,
max, custom), scans, and the algorithms built on them (copy_if, partition, unique, radix
sort), for several element types. Results are checked against numpy so that a broken run is
noticed, though the corpus test itself only builds the captured programs."""
import sys
import numpy as np
import pyopencl as cl
import pyopencl.array as cla
import pyopencl.clmath as clmath
import pyopencl.algorithm as alg
from pyopencl.elementwise import ElementwiseKernel
from pyopencl.reduction import ReductionKernel
from pyopencl.scan import GenericScanKernel, InclusiveScanKernel, ExclusiveScanKernel

platform = next(p for p in cl.get_platforms() if p.name == "Clift")
ctx = cl.Context(platform.get_devices())
q = cl.CommandQueue(ctx)
rng = np.random.default_rng(14)
n = 1000


def check(name, got, want, tol=1e-4):
    got = np.asarray(got)
    want = np.asarray(want)
    if got.shape != want.shape or not np.allclose(got, want, rtol=tol, atol=tol):
        sys.exit(f"{name}: got {got!r}, want {want!r}")


for dtype in [np.int32, np.uint32, np.int64, np.float32, np.float64, np.int8, np.uint16]:
    a_h = (rng.integers(1, 50, n)).astype(dtype)
    b_h = (rng.integers(1, 50, n)).astype(dtype)
    a = cla.to_device(q, a_h)
    b = cla.to_device(q, b_h)
    check(f"add {dtype}", (a + b).get(), a_h + b_h)
    check(f"mul {dtype}", (a * b).get(), a_h * b_h)
    check(f"sub scalar {dtype}", (a - 3).get(), a_h - dtype(3))
    check(f"max {dtype}", cla.maximum(a, b).get(), np.maximum(a_h, b_h))
    check(f"sum {dtype}", cla.sum(a).get(), a_h.sum(dtype=a_h.dtype))
    check(f"min {dtype}", cla.min(a).get(), a_h.min())
    check(f"max red {dtype}", cla.max(a).get(), a_h.max())
    check(f"dot {dtype}", cla.dot(a, b).get(), np.dot(a_h, b_h))
    if a_h.itemsize >= 4:  # pyopencl scans need 4-byte multiples
        check(f"cumsum {dtype}", cla.cumsum(a).get(), np.cumsum(a_h, dtype=a_h.dtype))
    check(f"where {dtype}", cla.if_positive(a - 25, a, b).get(), np.where(a_h - dtype(25) > 0, a_h, b_h))
    check(f"astype {dtype}", a.astype(np.float32).get(), a_h.astype(np.float32))
    check(f"cmp {dtype}", (a < b).get(), (a_h < b_h).astype(np.int8))
    check(f"fill {dtype}", cla.zeros(q, 17, dtype).fill(dtype(5)).get(), np.full(17, 5, dtype))
    idx = cla.to_device(q, np.arange(0, n, 7).astype(np.int32))
    check(f"take {dtype}", cla.take(a, idx).get(), a_h[np.arange(0, n, 7)])
    if np.issubdtype(dtype, np.integer):
        check(f"and {dtype}", (a & b).get(), a_h & b_h)
        out, count, _ = alg.copy_if(a, "ary[i] > 25")
        c = int(count.get())
        check(f"copy_if {dtype}", out.get()[:c], a_h[a_h > 25])
    else:
        check(f"div {dtype}", (a / b).get(), a_h / b_h)
        check(f"sqrt {dtype}", clmath.sqrt(a).get(), np.sqrt(a_h))
        check(f"exp {dtype}", clmath.exp(a / 50).get(), np.exp(a_h / dtype(50)))
        check(f"sin {dtype}", clmath.sin(a).get(), np.sin(a_h))
        check(f"atan2 {dtype}", clmath.atan2(a, b).get(), np.arctan2(a_h, b_h))
        check(f"pow {dtype}", (a ** 2).get(), a_h ** 2, 1e-3)
        check(f"abs {dtype}", abs(-a).get(), a_h)

x = cla.to_device(q, rng.random(n).astype(np.float32))
y = cla.to_device(q, rng.random(n).astype(np.float32))
lin = ElementwiseKernel(ctx, "float k, float *x, float *y, float *z", "z[i] = k * x[i] + y[i]", "lin")
z = cla.empty_like(x)
lin(np.float32(2), x, y, z)
check("elementwise", z.get(), 2 * x.get() + y.get())
norm = ReductionKernel(ctx, np.float32, neutral="0", reduce_expr="a+b", map_expr="x[i]*x[i]", arguments="__global float *x")
check("reduction", norm(x).get(), np.sum(x.get() ** 2), 1e-3)
maxabs = ReductionKernel(ctx, np.float32, neutral="0", reduce_expr="fmax(a, b)", map_expr="fabs(x[i] - y[i])", arguments="__global float *x, __global float *y")
check("reduction 2", maxabs(x, y).get(), np.max(np.abs(x.get() - y.get())))
iscan = InclusiveScanKernel(ctx, np.int32, "a+b", neutral="0")
v = cla.to_device(q, np.arange(n, dtype=np.int32) % 7)
check("inclusive scan", iscan(v.copy()).get(), np.cumsum(v.get()))
escan = ExclusiveScanKernel(ctx, np.int64, "max(a, b)", "0")
w = cla.to_device(q, (np.arange(n) * 37 % 101).astype(np.int64))
want = np.concatenate([[0], np.maximum.accumulate(w.get())[:-1]])
check("exclusive scan", escan(w.copy()).get(), want)
seg = GenericScanKernel(
    ctx, np.int32, arguments="__global int *ary, __global int *out",
    input_expr="ary[i]", scan_expr="across_seg_boundary ? b : (a+b)", neutral="0",
    is_segment_start_expr="i % 10 == 0", output_statement="out[i] = item;")
out = cla.empty_like(v)
seg(v, out)
want = np.concatenate([np.cumsum(v.get()[s:s + 10]) for s in range(0, n, 10)])
check("segmented scan", out.get(), want)
keys = cla.to_device(q, (np.arange(n) * 7919 % 1009).astype(np.uint32))
vals = cla.to_device(q, np.arange(n, dtype=np.uint32) % 3)
left, right, count, _ = alg.partition(vals, "ary[i] == 0")
check("partition", int(count.get()), int(np.sum(vals.get() == 0)))
u, ucount, _ = alg.unique(cla.to_device(q, np.sort(vals.get())))
check("unique", int(ucount.get()), 3)
sorter = alg.RadixSort(ctx, "unsigned *keys", key_expr="keys[i]", sort_arg_names=["keys"])
(sorted_keys,), _ = sorter(keys, key_bits=10)
check("radix sort", sorted_keys.get(), np.sort(keys.get()))
print("pyopencl kernels ran")
