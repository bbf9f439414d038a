"""Steady-state speed of kernels pyopencl generates at run time (Debian package
python3-pyopencl), on Clift and on PoCL in one process: element-wise array arithmetic (and,
for contrast, the same operation as a plain one-element-per-work-item kernel), math built-ins
on arrays, reductions (sum, dot, a custom max-abs), scans, stream compaction, a radix sort and
the Philox random generator. Every result is checked against numpy first (a
wrong result is reported, not timed). Prints a markdown table with PoCL time / Clift time.

Usage: OCL_ICD_VENDORS=<dir with clift.icd and pocl.icd> /usr/bin/python3 pyopencl_bench.py
       [--size N] [--runs R] [--only NAME,...]"""
import argparse
import sys
import time

import numpy as np
import pyopencl as cl
import pyopencl.algorithm as alg
import pyopencl.array as cla
import pyopencl.clmath as clmath
import pyopencl.clrandom as clrandom
from pyopencl.elementwise import ElementwiseKernel
from pyopencl.reduction import ReductionKernel
from pyopencl.scan import InclusiveScanKernel

ap = argparse.ArgumentParser()
ap.add_argument("--size", type=int, default=1 << 22)
ap.add_argument("--runs", type=int, default=7)
ap.add_argument("--only", default="")
args = ap.parse_args()
N = args.size


def cases(ctx, q):
    """(name, what, run, check): run() enqueues the work and returns an array or event;
    check(result) raises on a wrong result."""
    rng = np.random.default_rng(7)
    xh = rng.standard_normal(N).astype(np.float32)
    yh = rng.standard_normal(N).astype(np.float32)
    dh = rng.standard_normal(N)
    ih = rng.integers(0, 1 << 30, N).astype(np.int32)
    x, y, d, iv = (cla.to_device(q, a) for a in (xh, yh, dh, ih))
    out = cla.empty_like(x)
    axpbyz = ElementwiseKernel(ctx, "float a, float *x, float b, float *y, float *z",
                               "z[i] = a*x[i] + b*y[i]", "axpbyz")
    maxabs = ReductionKernel(ctx, np.float32, neutral="0", reduce_expr="fmax(a,b)",
                             map_expr="fabs(x[i])", arguments="__global float *x")
    cumsum = InclusiveScanKernel(ctx, np.int32, "a+b", neutral="0")
    small = cla.to_device(q, (ih % 1000).astype(np.int32))
    sorter = alg.RadixSort(ctx, "int *ary", key_expr="ary[i]", sort_arg_names=["ary"])
    sort_in = cla.to_device(q, (ih[: N // 4] % (1 << 20)).astype(np.int32))
    gen = clrandom.PhiloxGenerator(ctx)
    # The same operation as axpbyz, one element per work-item (not pyopencl's: for contrast
    # with its grid-stride loop).
    flat = cl.Program(ctx, """
        kernel void axpbyz_flat(float a, global const float *x, float b, global const float *y,
                                global float *z) {
            size_t i = get_global_id(0);
            z[i] = a * x[i] + b * y[i];
        }""").build().axpbyz_flat

    def close(got, want, tol):
        if not np.allclose(got, want, rtol=tol, atol=tol):
            bad = np.argmax(~np.isclose(got, want, rtol=tol, atol=tol))
            raise ValueError(f"element {bad}: {got.flat[bad]} vs {want.flat[bad]}")

    return [
        ("axpbyz", "z = a*x + b*y, float",
         lambda: axpbyz(2.0, x, 3.0, y, out),
         lambda r: close(out.get(), 2 * xh + 3 * yh, 1e-5)),
        ("axpbyz_flat", "the same, one element per work-item (for contrast)",
         lambda: flat(q, (N,), None, np.float32(2), x.data, np.float32(3), y.data, out.data),
         lambda r: close(out.get(), 2 * xh + 3 * yh, 1e-5)),
        ("array_arith", "x*y + 2*x - y (three kernels), float",
         lambda: x * y + 2 * x - y,
         lambda r: close(r.get(), xh * yh + 2 * xh - yh, 1e-5)),
        ("sin_exp", "sin(x) + exp(y/4), float",
         lambda: clmath.sin(x) + clmath.exp(y / 4),
         lambda r: close(r.get(), np.sin(xh) + np.exp(yh / 4), 1e-4)),
        ("sqrt_double", "sqrt(d*d + 1), double",
         lambda: clmath.sqrt(d * d + 1),
         lambda r: close(r.get(), np.sqrt(dh * dh + 1), 1e-12)),
        ("sum", "sum(x), float",
         lambda: cla.sum(x),
         lambda r: close(r.get(), xh.astype(np.float64).sum(), 2e-2)),
        ("dot_double", "dot(d, d), double",
         lambda: cla.dot(d, d),
         lambda r: close(r.get(), np.dot(dh, dh), 1e-8)),
        ("maxabs", "custom reduction max |x|, float",
         lambda: maxabs(x),
         lambda r: close(r.get(), np.abs(xh).max(), 0)),
        ("cumsum", "inclusive scan, int",
         lambda: cumsum(small.copy()),
         lambda r: close(r.get(), np.cumsum(ih % 1000, dtype=np.int32), 0)),
        ("copy_if", "stream compaction x > 0.5, float",
         lambda: alg.copy_if(x, "ary[i] > 0.5f")[:2],
         lambda r: close(r[0][: int(r[1].get())].get(), xh[xh > 0.5], 0)),
        ("radix_sort", f"radix sort of {N // 4} ints below 2^20",
         lambda: sorter(sort_in, key_bits=20)[0][0],
         lambda r: close(r.get(), np.sort(ih[: N // 4] % (1 << 20)), 0)),
        ("philox", "Philox uniform floats",
         lambda: gen.uniform(q, N, np.float32),
         lambda r: None if 0.45 < float(r.get().mean()) < 0.55 else (_ for _ in ()).throw(
             ValueError("mean out of range"))),
    ]


def measure(platform):
    ctx = cl.Context(platform.get_devices())
    q = cl.CommandQueue(ctx)
    results = {}
    for name, what, run, check in cases(ctx, q):
        if args.only and name not in args.only.split(","):
            continue
        try:
            r = run()
            q.finish()
            check(r)
            run()
            q.finish()
            times = []
            for _ in range(args.runs):
                t = time.perf_counter()
                run()
                q.finish()
                times.append(time.perf_counter() - t)
            results[name] = (what, sorted(times)[len(times) // 2], None)
        except Exception as e:  # a wrong or failed result is reported, not timed
            results[name] = (what, None, str(e).splitlines()[0][:120])
    return results


def fmt(t):
    return "—" if t is None else (f"{t * 1e3:.2f} ms" if t >= 1e-3 else f"{t * 1e6:.0f} µs")


def main():
    plats = {p.name: p for p in cl.get_platforms()}
    clift = plats.get("Clift")
    pocl = next((p for n, p in plats.items() if "Portable" in n), None)
    if clift is None or pocl is None:
        sys.exit(f"need the Clift and PoCL platforms; found {list(plats)}")
    res = {"Clift": measure(clift), "PoCL": measure(pocl)}
    print(f"pyopencl {cl.VERSION_TEXT}, {N} elements, median of {args.runs} runs after one warm-up\n")
    print("| kernel (pyopencl-generated) | what | Clift | PoCL | PoCL / Clift |")
    print("|---|---|---|---|---|")
    failures = []
    for name, (what, tc, ec) in res["Clift"].items():
        _, tp, ep = res["PoCL"].get(name, (what, None, "not run"))
        ratio = f"{tp / tc:.2f}x" if tc and tp else "—"
        print(f"| {name} | {what} | {fmt(tc) if tc else 'FAILED'} | {fmt(tp) if tp else 'FAILED'} | {ratio} |")
        failures += [f"{name} on {p}: {e}" for p, e in (("Clift", ec), ("PoCL", ep)) if e]
    if failures:
        print("\nFailures:\n" + "\n".join(f"- {f}" for f in failures))
        sys.exit(1)


main()
