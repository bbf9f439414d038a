#!/usr/bin/env bash
# Installs the Debian packages Clift builds, runs and is tested with.
set -euo pipefail
# hashcat-data and python3-pyopencl: OpenCL C of other projects for cts/tests/source_corpus.rs.
# llvm-15-dev, libclang-15-dev, libclang-cpp15-dev, libllvmspirvlib-15-dev: the compile server
# clift-clc (clc/) links libclang-cpp.so, which only libclang-cpp15-dev provides.
packages=(ocl-icd-libopencl1 ocl-icd-opencl-dev opencl-headers clinfo pocl-opencl-icd
          clang-15 llvm-15 llvm-spirv-15 spirv-tools
          llvm-15-dev libclang-15-dev libclang-cpp15-dev libllvmspirvlib-15-dev g++
          hashcat-data python3-pyopencl gcc libc6-dev pkg-config ca-certificates curl
          openmpi-bin libopenmpi-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
if ! command -v cargo >/dev/null 2>&1; then
  # Debian's cargo is too old for Cranelift; rustup gives the stable toolchain.
  curl -sSf https://sh.rustup.rs | sh -s -- -y --profile minimal
  # shellcheck disable=SC1091
  . "$HOME/.cargo/env"
fi
