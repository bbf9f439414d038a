#!/usr/bin/env bash
# Kernels written by others, on Clift and on PoCL (issue 16's "real kernels"): Debian's clpeak
# (its bandwidth and compute kernels) and the kernels pyopencl generates at run time
# (cts/corpus/pyopencl_bench.py). Installs clpeak and python3-pyopencl if missing. Prints each
# tool's own output per platform, then one table of clpeak's numbers with the ratios.
#   scripts/bench-others.sh [LIBCLIFT]   (default: target/release/libclift.so)
set -euo pipefail
cd "$(dirname "$0")/.."
lib=$(realpath "${1:-target/release/libclift.so}")
need=()
command -v clpeak >/dev/null || need+=(clpeak)
/usr/bin/python3 -c "import pyopencl" 2>/dev/null || need+=(python3-pyopencl)
[ -f /etc/OpenCL/vendors/pocl.icd ] || need+=(pocl-opencl-icd)
if [ ${#need[@]} -gt 0 ]; then
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}"
fi
vendors=$(mktemp -d)
cache=$(mktemp -d)
trap 'rm -rf "$vendors" "$cache"' EXIT
echo "$lib" > "$vendors/clift.icd"
cp /etc/OpenCL/vendors/pocl.icd "$vendors/"
export CLIFT_CACHE_DIR=$cache/clift POCL_CACHE_DIR=$cache/pocl PYOPENCL_NO_CACHE=1
echo "# Kernels written by others: $(date -u +%F\ %H:%M) UTC, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo
for who in Clift PoCL; do
  icd=$lib; [ $who = PoCL ] && icd=/etc/OpenCL/vendors/pocl.icd
  OCL_ICD_VENDORS=$icd clpeak > "$cache/clpeak.$who" 2>&1 || true
done
# clpeak prints "  <section> (<unit>)" then "    <type> : <value>" lines.
echo "## clpeak $(clpeak --version 2>/dev/null | head -1)"
echo
echo "| test | type | Clift | PoCL | Clift / PoCL |"
echo "|---|---|---|---|---|"
parse() { awk -F' : ' '/^    [A-Za-z]/ && !/ : / {sec=$0; sub(/^ +/,"",sec)}
               /^      +[^ ].* : [0-9.]+/ {t=$1; gsub(/^ +| +$/,"",t); print sec "/" t "|" $2+0}
               /Kernel launch latency/ {print "Kernel launch latency (us, lower is better)/-|" $2+0}' "$1" | LC_ALL=C sort -t'|' -k1,1; }
LC_ALL=C join -t'|' -a1 -e— -o 0,1.2,2.2 <(LC_ALL=C parse "$cache/clpeak.Clift") <(LC_ALL=C parse "$cache/clpeak.PoCL") |
  awk -F'|' '{split($1, k, "/"); r = ($3 + 0 > 0) ? sprintf("%.2fx", $2 / $3) : "—";
              if (k[1] ~ /latency/) r = ($2 + 0 > 0 && $3 + 0 > 0) ? sprintf("%.2fx faster", $3 / $2) : "—";
              printf "| %s | %s | %s | %s | %s |\n", k[1], k[2], $2, $3, r}'
if grep -q "No half precision" "$cache/clpeak.PoCL"; then
  echo; echo "(PoCL reports no half precision: its half rows are empty.)"
fi
echo
echo "## pyopencl's generated kernels"
echo
OCL_ICD_VENDORS=$vendors /usr/bin/python3 cts/corpus/pyopencl_bench.py 2>/dev/null
