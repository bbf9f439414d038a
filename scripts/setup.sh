#!/usr/bin/env bash
# One command from a fresh Debian machine to a working Clift: installs what is needed, builds
# libclift.so, registers it with the system ICD loader and shows it working.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/deps.sh
[ -f "$HOME/.cargo/env" ] && . "$HOME/.cargo/env"
cargo build --release -p clift-icd -p clift-clc
lib="${CARGO_TARGET_DIR:-$PWD/target}/release/libclift.so"

# Register: system-wide when we can write /etc/OpenCL/vendors, per user otherwise.
if [ -w /etc/OpenCL/vendors ] || { [ "$(id -u)" -eq 0 ] && mkdir -p /etc/OpenCL/vendors; }; then
  echo "$lib" > /etc/OpenCL/vendors/clift.icd
  echo "Registered system-wide: /etc/OpenCL/vendors/clift.icd -> $lib"
  export OCL_ICD_VENDORS=/etc/OpenCL/vendors
else
  mkdir -p "$HOME/.local/share/clift/vendors"
  echo "$lib" > "$HOME/.local/share/clift/vendors/clift.icd"
  export OCL_ICD_VENDORS="$HOME/.local/share/clift/vendors"
  echo "Registered for this user: export OCL_ICD_VENDORS=$OCL_ICD_VENDORS"
fi

echo "== clinfo -l =="
clinfo -l
echo "== Clift in clinfo =="
# Clift alone (the library path works as OCL_ICD_VENDORS for ocl-icd); head closes the pipe
# early, which must not stop the script.
(OCL_ICD_VENDORS="$lib" clinfo 2>&1 | head -45) || true
clinfo -l | grep -q Clift
echo "== a sample OpenCL C kernel on Clift (examples/hello.c) =="
out="${CARGO_TARGET_DIR:-$PWD/target}/hello"
cc -O2 -o "$out" examples/hello.c -lOpenCL
"$out"
echo "Clift is installed."
