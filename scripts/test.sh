#!/usr/bin/env bash
# The whole test suite: unit tests of the crates, then cts/ driving libclift.so through the
# system ICD loader (ocl-icd), with Clift as the only vendor the loader sees.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f "$HOME/.cargo/env" ] && . "$HOME/.cargo/env"
# The code generator's modules import only their own layer or lower ones, in no cycle
# (jit/src/codegen/mod.rs); any other import fails the suite.
echo "== codegen layers =="
scripts/codegen-layers.sh
cargo build --release -p clift-icd -p clift-clc
target="${CARGO_TARGET_DIR:-$PWD/target}"
vendors="$target/vendors"
mkdir -p "$vendors"
echo "$target/release/libclift.so" > "$vendors/clift.icd"
export OCL_ICD_VENDORS="$vendors"
export CLIFT_CTS_PLATFORM="${CLIFT_CTS_PLATFORM:-Clift}"
# A kernel whose vector loop fails to build is a test failure, not a quiet scalar fallback
# (`check`; the SIMD tests run their kernels with `strict`, where a kernel or region the vector
# loop does not take at all is an error too).
export CLIFT_SIMD="${CLIFT_SIMD:-check}"
# A cache of our own, emptied first, so every run starts cold and leaves the user's alone.
export CLIFT_CACHE_DIR="$target/test-cache"
rm -rf "$CLIFT_CACHE_DIR"
echo "== clinfo sees =="
clinfo -l
echo "== the sample application =="
cc -O2 -o "$target/hello" examples/hello.c -lOpenCL
"$target/hello"
echo "== the MPI example: 2 ranks bound to one core each, equal to 1 rank =="
examples/mpi/check.sh
cargo test --release --workspace --exclude clift-cts
cargo test --release -p clift-cts -- --test-threads="${CTS_THREADS:-4}"
