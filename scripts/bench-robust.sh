#!/bin/sh
# Robust mode's cost (README "Robust mode", BENCHMARKS.md): clift-bench's kernels on Clift from
# SPIR-V, normal and with CLIFT_ROBUST=1, on the same libclift.so, in alternating runs; prints the
# median over the runs of each steady-state time and the ratio robust / normal as markdown.
#   scripts/bench-robust.sh [RUNS (default 3)] [clift-bench options...]
# Needs target/release/libclift.so and target/release/clift-bench (cargo build --release -p
# clift-icd; cargo build --release -p clift-cts --bin clift-bench).
set -eu
cd "$(dirname "$0")/.."
runs=${1:-3}
[ $# -gt 0 ] && shift
vendors=$(mktemp -d)
out=$(mktemp -d)
trap 'rm -rf "$vendors" "$out"' EXIT
echo "$PWD/target/release/libclift.so" > "$vendors/clift.icd"
kernels=${ROBUST_BENCH_KERNELS:-vecadd,saxpy,daxpy,reduce,sgemm,mandelbrot,histogram,nbody,hash,vec4,image_linear_rgba8_clamp}
i=0
while [ "$i" -lt "$runs" ]; do
    for mode in normal robust; do
        if [ "$mode" = robust ]; then r=1; else r=0; fi
        echo "bench-robust: run $((i + 1)) of $runs, $mode" >&2
        CLIFT_ROBUST=$r OCL_ICD_VENDORS="$vendors" target/release/clift-bench --il --no-warm \
            --platform Clift --reps 1 --kernel "$kernels" "$@" > "$out/$mode.$i" 2>/dev/null
    done
    i=$((i + 1))
done
python3 - "$out" "$runs" <<'PY'
import re, statistics, sys
out, runs = sys.argv[1], int(sys.argv[2])
unit = {"ns": 1e-9, "µs": 1e-6, "ms": 1e-3, "s": 1.0}
def steady(path):
    t = {}
    for line in open(path, encoding="utf-8"):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 10 or cells[0] in ("kernel", "---"):
            continue
        m = re.match(r"([0-9.]+) (ns|µs|ms|s)\b", cells[8])
        if m and cells[4] == "ok":
            t[cells[0]] = float(m.group(1)) * unit[m.group(2)]
    return t
res = {mode: [steady(f"{out}/{mode}.{i}") for i in range(runs)] for mode in ("normal", "robust")}
def fmt(s):
    return f"{s * 1e3:.2f} ms" if s >= 1e-3 else f"{s * 1e6:.1f} µs"
print(f"| kernel | normal (median of {runs}) | robust (median of {runs}) | robust / normal |")
print("|---|---|---|---|")
ratios = []
for k in res["normal"][0]:
    n = [r[k] for r in res["normal"] if k in r]
    b = [r[k] for r in res["robust"] if k in r]
    if len(n) != runs or len(b) != runs:
        print(f"| {k} | {len(n)} runs ok | {len(b)} runs ok | — |")
        continue
    mn, mb = statistics.median(n), statistics.median(b)
    ratios.append(mb / mn)
    print(f"| {k} | {fmt(mn)} | {fmt(mb)} | {mb / mn:.2f}x |")
if ratios:
    print(f"\nGeometric mean of the ratios: {statistics.geometric_mean(ratios):.2f}x; worst {max(ratios):.2f}x.")
PY
