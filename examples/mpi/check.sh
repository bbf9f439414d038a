#!/usr/bin/env bash
# Builds examples/mpi/heat.c and checks the scale-out path (scripts/test.sh runs this):
#   - one rank, unbound (its device has every CPU of the process), its grid checked bit for
#     bit against the host;
#   - two ranks under `mpirun --bind-to core`: each rank's Clift device has exactly one
#     compute unit, and the grid is bit-identical to the one-rank run.
# Needs Open MPI (openmpi-bin, libopenmpi-dev: scripts/deps.sh) and Clift registered with the
# ICD loader (OCL_ICD_VENDORS, as scripts/test.sh sets it).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${CARGO_TARGET_DIR:-$here/../../target}/mpi"
mkdir -p "$out"
command -v mpicc >/dev/null || { echo "mpicc not found: install openmpi-bin and libopenmpi-dev (scripts/deps.sh)" >&2; exit 1; }
mpicc -O2 -ffp-contract=off -DKERNEL_PATH="\"$here/heat.cl\"" -o "$out/heat" "$here/heat.c" -lOpenCL

# Open MPI refuses to run as root unless told; containers and CI often are root.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Clift picks its CPUs from the process's affinity; CLIFT_THREADS would override that.
unset CLIFT_THREADS
mpirun=(mpirun --oversubscribe)
grid=(256 130 200)

cores=$(nproc)
if [ "$cores" -lt 2 ]; then
  echo "only $cores CPU: the two-rank run needs two cores to bind to" >&2
  exit 1
fi
"${mpirun[@]}" -np 1 --bind-to none "$out/heat" "${grid[@]}" "$out/one.bin" --check | tee "$out/one.log"
grep -q "^rank 0 of 1: $cores compute units" "$out/one.log"
grep -q "host check: 0 of" "$out/one.log"
"${mpirun[@]}" -np 2 --bind-to core "$out/heat" "${grid[@]}" "$out/two.bin" | tee "$out/two.log"
for r in 0 1; do
  grep -q "^rank $r of 2: 1 compute units, CPUs [0-9]*$" "$out/two.log" || {
    echo "rank $r was not given exactly one compute unit on one CPU" >&2
    exit 1
  }
done
cmp "$out/one.bin" "$out/two.bin"
echo "MPI example: 2 ranks bound to one core each, grid bit-identical to 1 rank"
