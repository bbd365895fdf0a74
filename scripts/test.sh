#!/usr/bin/env bash
# Set-up (packages, configure, build) and the whole test suite:
#   1. Release with assertions and warnings as errors: every ctest label (gpu tests skip
#      themselves without a device; ui tests run under xvfb-run).
#   2. AddressSanitizer + UndefinedBehaviorSanitizer build of the parts that read hostile input
#      and keep the KV-block and batch bookkeeping (base, traces, engine/kv, engine/sched) and
#      their unit tests. TIDAL_SANITIZE_ALL=1 puts the whole tree (less CUDA, dashboard and
#      benchmarks) under the sanitizers instead: over an hour on 2 cores, beyond CI's budget.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)

scripts/setup.sh build -DTIDAL_WERROR=ON
ctest --test-dir build --output-on-failure -j "$jobs" --timeout 900

# -O1 keeps the sanitizer build quick to compile; benchmarks, dashboard and CUDA are left out.
# Warnings are errors in the first build already; -O1 can only add maybe-uninitialized noise.
part="base;traces;engine/kv;engine/sched"
if [ "${TIDAL_SANITIZE_ALL:-0}" = 1 ]; then part=""; fi
scripts/setup.sh build-asan -DTIDAL_SANITIZE=ON -DTIDAL_CUDA=OFF -DTIDAL_UI=OFF \
  -DTIDAL_BENCH=OFF -DCMAKE_CXX_FLAGS_RELEASE=-O1 "-DTIDAL_PART=$part"
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build-asan --output-on-failure -j "$jobs" -L unit --timeout 900
echo "test.sh: all suites passed"
