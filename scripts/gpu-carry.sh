#!/usr/bin/env bash
# scripts/gpu-check.sh on a GPU machine that has the same CUDA toolkit as this one but not the
# Debian packages the build needs (the H200 lent to sessions: nvcc 13, Ubuntu, no nlohmann-json,
# CLI11, fmt, Eigen, Boost or GTest): build the CUDA targets here, carry them, run there.
#   scripts/gpu-carry.sh pack   here: build build-gpu-check (Release, CUDA, no UI, no MPI) and
#                               pack its executables and CTest files into .gpu-carry/
#   scripts/gpu-carry.sh run    there, in the carried checkout (carry .gpu-carry): unpack at the
#                               absolute path it was built at (a symbolic link to this checkout
#                               when that path is elsewhere), then GPU_CHECK_SKIP_BUILD=1
#                               scripts/gpu-check.sh; $OUT gets gpu-check.json, env.log
#                               (nvidia-smi, libraries) and gc-out.tar.gz (every output and log)
# GPU_CHECK_BUDGET_S is passed through (default 400 s here).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
carry=$repo/.gpu-carry
build_dir=build-gpu-check

pack() {
  cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTIDAL_CUDA=ON -DTIDAL_UI=OFF \
    -DCMAKE_DISABLE_FIND_PACKAGE_MPI=ON > /dev/null
  local targets
  targets=$(cmake --build "$build_dir" --target help |
    grep -oE '^(cuda_[a-z0-9_]+_test|gpu_decode|[a-z0-9_]+_dev|tidal):' |
    tr -d ':' | sort -u | tr '\n' ' ')
  # shellcheck disable=SC2086  # one target per word
  cmake --build "$build_dir" --parallel "$(nproc)" --target $targets
  rm -rf "$carry"
  mkdir -p "$carry/lib"
  local files
  files=$(cd "$build_dir" && find . \( -name CTestTestfile.cmake -o -name '*_tests.cmake' \
    -o -name '*_include.cmake' -o -name 'cuda_*_test' -o -name '*_dev' -o -path ./cli/tidal \
    -o -path ./bench/gpu_decode \) -type f)
  # shellcheck disable=SC2086  # one path per word
  (cd "$build_dir" && tar -cf - $files) | xz -T0 -3 > "$carry/build.tar.xz"
  # The one library outside the CUDA toolkit and the C runtime that the executables need.
  cp -L "$(ldd "$build_dir/cli/tidal" | awk '/libfmt/ {print $3}')" "$carry/lib/"
  echo "$repo/$build_dir" > "$carry/build_path"
  du -sh "$carry"
}

run() {
  local out=${OUT:?run: OUT must name the folder for the results}
  local built_at
  built_at=$(cat "$carry/build_path")
  local built_repo=${built_at%/*}
  if [[ $built_repo != "$repo" ]]; then
    if [[ ! -e $built_repo ]]; then
      mkdir -p "$(dirname "$built_repo")"
      ln -s "$repo" "$built_repo"
    elif [[ $(cd "$built_repo" && pwd -P) != $(pwd -P) ]]; then
      echo "run: the pack was built at $built_repo, another checkout on this machine" >&2
      exit 1
    fi
  fi
  rm -rf "${repo:?}/$build_dir"
  mkdir -p "$repo/$build_dir"
  xz -dc "$carry/build.tar.xz" | tar -xf - -C "$repo/$build_dir"
  export LD_LIBRARY_PATH="$carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  {
    nvidia-smi || true
    head -2 /etc/os-release
    local missing lib found
    missing=$(ldd "$repo/$build_dir/cli/tidal" | awk '/not found/ {print $1}')
    for lib in $missing; do  # e.g. NCCL from a Python wheel
      found=$(find / -xdev \( -path /proc -o -path /sys \) -prune -o -name "$lib" -print \
        2> /dev/null | head -1)
      echo "missing $lib -> ${found:-not found}"
      [[ -n $found ]] && LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$(dirname "$found")"
    done
    echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
    ldd "$repo/$build_dir/cli/tidal"
  } > "$out/env.log" 2>&1
  local rc=0
  (cd "$built_repo" && OUT=/tmp/gpu-carry-out GPU_CHECK_SKIP_BUILD=1 \
    GPU_CHECK_BUDGET_S=${GPU_CHECK_BUDGET_S:-400} scripts/gpu-check.sh "$build_dir") || rc=$?
  cp /tmp/gpu-carry-out/gpu-check.json "$out/" 2> /dev/null || true
  tar -C /tmp -czf "$out/gc-out.tar.gz" gpu-carry-out
  return $rc
}

case ${1:-} in
  pack) pack ;;
  run) run ;;
  *)
    echo "usage: scripts/gpu-carry.sh pack|run" >&2
    exit 2
    ;;
esac
