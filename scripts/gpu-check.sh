#!/usr/bin/env bash
# The CUDA backend on a real GPU, in one run of under 8 minutes on an H200 (phases in order of
# priority; each is skipped once the budget is spent):
#   1. configure + build (Release, CUDA, the CUDA targets and the tidal CLI, -j$(nproc))
#   2. ctest -L gpu: every CUDA kernel against the CPU reference on random non-zero inputs,
#      KV arena, decode graphs, NCCL (TP=1 vs TP=2 when two GPUs exist), the engine on CUDA vs
#      the CPU engine, a CUDA profile of the tiny preset
#   3. tidal engine run --backend cuda on a short generated trace (run folder under
#      $OUT/engine_run_cuda; decode steps through CUDA graphs), the same with --cuda-graphs off
#      and with --weight-dtype bf16, and tidal profile --backend cuda on the tiny preset
#      ($OUT/profile_tiny_cuda.json; with two GPUs also --tp 2, whose all-reduce table is
#      measured with NCCL: $OUT/profile_tiny_cuda_tp2.json)
#   4. bench/gpu_decode: device-to-device copy bandwidth first, cuBLAS bf16 GEMM rate, batch-1
#      decode of an 8B-class random bf16 model vs weight bytes / bandwidth, 4,096-token prefill
#      vs the GEMM rate, int8 vs bf16 decode, decode step table (batch 1..256 x context 512..32k),
#      then the same through the fused layer (batch-1 decode vs ideal, its GEMV and gate/up
#      variants, 4,096-token prefill vs cuBLAS, int8 vs bf16) and sampling per row over 128k
#      logits at batch 1 and 256
#   5. kernels/dev programs (fused decode operators, int8 linear and paged attention variants,
#      elementwise kernels and sampling), while time remains
#   6. tidal validate --matrix examples/validation/cuda_matrix_tiny.json (engine on CUDA vs the
#      simulator on a CUDA profile) into $OUT/validate_cuda_tiny, while time remains
#      (GPU_CHECK_VALIDATE=0 skips it); with GPU_CHECK_VALIDATE_8B=1 also the Llama-3-8B-shaped
#      matrix (cuda_matrix_llama3_8b.json, minutes a case: give it a run of its own, e.g.
#      GPU_CHECK_ONLY_VALIDATE=1)
# Writes gpu-check.json (phase status and seconds, every benchmark figure) and logs/ under $OUT
# when set, else build/gpu-check/. Each phase has a timeout; the JSON is written on every exit.
#   scripts/gpu-check.sh [build-dir]   (default: build-gpu-check)
# GPU_CHECK_SKIP_BUILD=1 runs phases 2-5 on a build dir that already holds the targets (built on
# a machine with the same CUDA toolkit, at the same absolute path); GPU_CHECK_BUDGET_S caps the
# whole run (default 460 s). GPU_CHECK_ONLY_VALIDATE=1 runs only phase 6 (on a built dir).
# shellcheck disable=SC2317  # write_summary runs from the EXIT trap
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
build_dir=${1:-build-gpu-check}
out_dir=${OUT:-$repo/build/gpu-check}
mkdir -p "$out_dir/logs"
logs=$out_dir/logs
budget_s=${GPU_CHECK_BUDGET_S:-460}
started=$SECONDS
phases=()  # JSON fragments: "name": {"rc": N, "seconds": S}

json_string() {  # a JSON string literal of $1 (backslashes, quotes, control characters)
  local s=${1//\\/\\\\}
  s=${s//\"/\\\"}
  s=${s//$'\n'/\\n}
  s=${s//$'\t'/ }
  printf '"%s"' "$s"
}

write_summary() {
  local figures="" line
  if [[ -f $logs/gpu_decode.log ]]; then
    while IFS= read -r line; do
      [[ $line == \{* ]] && figures+="${figures:+, }$line"
    done < "$logs/gpu_decode.log"
  fi
  local dev="" f
  for f in "$logs"/dev_*.log; do
    [[ -f $f ]] || continue
    while IFS= read -r line; do
      [[ $line == \{* ]] && dev+="${dev:+, }$line"
    done < "$f"
  done
  local validation="" m
  for m in "$out_dir"/validate_cuda_*/matrix.json; do
    [[ -f $m ]] || continue
    validation+="${validation:+, }$(json_string "$(basename "$(dirname "$m")")"): $(cat "$m")"
  done
  local gpus="unknown"
  if command -v nvidia-smi > /dev/null 2>&1; then
    gpus=$(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>&1 || true)
  fi
  local phase_json
  phase_json=$(IFS=,; echo "${phases[*]:-}")
  {
    echo "{"
    echo "  \"commit\": $(json_string "$(git rev-parse HEAD 2>/dev/null || echo unknown)"),"
    echo "  \"date_utc\": $(json_string "$(date -u +%Y-%m-%dT%H:%M:%SZ)"),"
    echo "  \"gpus\": $(json_string "$gpus"),"
    echo "  \"seconds\": $((SECONDS - started)),"
    echo "  \"phases\": {${phase_json}},"
    echo "  \"figures\": [${figures}],"
    echo "  \"dev\": [${dev}],"
    echo "  \"validation\": {${validation}}"
    echo "}"
  } > "$out_dir/gpu-check.json"
  echo "gpu-check: wrote $out_dir/gpu-check.json"
}
trap write_summary EXIT

# run_phase NAME MAX_SECONDS COMMAND...: runs under a timeout capped by the time left; logs to
# logs/NAME.log; records rc (124 = timed out) and seconds; returns the rc.
run_phase() {
  local name=$1 max_s=$2
  shift 2
  local left=$((budget_s - (SECONDS - started)))
  local limit=$((max_s < left ? max_s : left))
  if ((limit < 5)); then
    phases+=("\"$name\": {\"rc\": null, \"skipped\": \"time budget spent\"}")
    echo "gpu-check: $name skipped (time budget spent)"
    return 1
  fi
  local t0=$SECONDS rc=0
  echo "gpu-check: $name (timeout ${limit}s)"
  timeout --kill-after=10 "$limit" "$@" > "$logs/$name.log" 2>&1 || rc=$?
  phases+=("\"$name\": {\"rc\": $rc, \"seconds\": $((SECONDS - t0))}")
  tail -n 5 "$logs/$name.log" || true
  return $rc
}

# Configures and builds the CUDA targets and the CLI (phase 1).
build_targets() {
  # The dashboard is not needed here: leaving it out drops the GLFW / OpenGL dependencies.
  run_phase configure 120 cmake -S "$repo" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DTIDAL_CUDA=ON -DTIDAL_UI=OFF
  if ! grep -q "CUDA backend ON" "$logs/configure.log"; then
    echo "gpu-check: configure did not enable CUDA (no nvcc?)" >&2
    exit 1
  fi
  local targets
  targets=$(cmake --build "$build_dir" --target help |
    grep -oE '^(cuda_[a-z0-9_]+_test|gpu_decode|[a-z0-9_]+_dev|tidal):' |
    tr -d ':' | sort -u | tr '\n' ' ')
  # shellcheck disable=SC2086  # one target per word
  run_phase build 330 cmake --build "$build_dir" -j "$(nproc)" --target $targets
}

if [[ ${GPU_CHECK_SKIP_BUILD:-0} == 1 ]]; then
  if [[ ! -x $build_dir/cli/tidal ]]; then
    echo "gpu-check: GPU_CHECK_SKIP_BUILD=1 but $build_dir/cli/tidal is not built" >&2
    exit 1
  fi
  phases+=("\"build\": {\"rc\": null, \"skipped\": \"GPU_CHECK_SKIP_BUILD=1\"}")
else
  build_targets
fi

# Phase 6: engine vs simulator on the GPU (matrix summaries land in gpu-check.json too).
validate_rc=0
run_validation() {
  if [[ ${GPU_CHECK_VALIDATE:-1} == 1 ]]; then
    run_phase validate_cuda_tiny 240 "$build_dir/cli/tidal" validate \
      --matrix "$repo/examples/validation/cuda_matrix_tiny.json" \
      --out "$out_dir/validate_cuda_tiny" || validate_rc=$?
  fi
  if [[ ${GPU_CHECK_VALIDATE_8B:-0} == 1 ]]; then
    run_phase validate_cuda_llama3_8b 560 "$build_dir/cli/tidal" validate \
      --matrix "$repo/examples/validation/cuda_matrix_llama3_8b.json" \
      --out "$out_dir/validate_cuda_llama3_8b" || validate_rc=$?
  fi
}
if [[ ${GPU_CHECK_ONLY_VALIDATE:-0} == 1 ]]; then
  run_validation
  exit $((validate_rc != 0))
fi

tests_rc=0
run_phase tests 180 ctest --test-dir "$build_dir" -L gpu --output-on-failure --timeout 150 ||
  tests_rc=$?

# The engine and the profiler on the GPU through the CLI, outputs kept under $out_dir.
tidal=$build_dir/cli/tidal
cli_rc=0
cat > "$out_dir/engine_trace_spec.json" << 'SPEC'
{"kind": "poisson", "rate": 20, "num_requests": 32,
 "prompt": {"dist": "uniform", "min": 16, "max": 256},
 "output": {"dist": "uniform", "min": 8, "max": 64}}
SPEC
run_phase trace_gen 20 "$tidal" trace gen --spec "$out_dir/engine_trace_spec.json" --seed 1 \
  --out "$out_dir/engine_trace.jsonl" || cli_rc=$?
run_phase engine_run_cuda 60 "$tidal" engine run --backend cuda --model tiny \
  --trace "$out_dir/engine_trace.jsonl" --out "$out_dir/engine_run_cuda" || cli_rc=$?
run_phase engine_run_cuda_eager 40 "$tidal" engine run --backend cuda --cuda-graphs off \
  --model tiny --trace "$out_dir/engine_trace.jsonl" --out "$out_dir/engine_run_cuda_eager" ||
  cli_rc=$?
run_phase engine_run_cuda_bf16 40 "$tidal" engine run --backend cuda --weight-dtype bf16 \
  --model tiny --trace "$out_dir/engine_trace.jsonl" --out "$out_dir/engine_run_cuda_bf16" ||
  cli_rc=$?
run_phase profile_cuda 120 "$tidal" profile --backend cuda --model tiny --max-tokens 512 \
  --max-batch 32 --out "$out_dir/profile_tiny_cuda.json" || cli_rc=$?
if (($(nvidia-smi --list-gpus 2> /dev/null | wc -l) >= 2)); then
  run_phase profile_cuda_tp2 90 "$tidal" profile --backend cuda --tp 2 --model tiny \
    --max-tokens 256 --max-batch 16 --out "$out_dir/profile_tiny_cuda_tp2.json" || cli_rc=$?
fi
bench_rc=0
run_phase gpu_decode 240 "$build_dir/bench/gpu_decode" || bench_rc=$?
for program in fused_dev int8_linear_dev paged_attention_dev elementwise_dev; do
  run_phase "dev_$program" 60 "$build_dir/kernels/cuda/dev/$program" || true
done
run_validation
echo "gpu-check: tests rc $tests_rc, engine/profile CLI rc $cli_rc, gpu_decode rc $bench_rc," \
  "validate rc $validate_rc"
exit $((tests_rc != 0 || cli_rc != 0 || bench_rc != 0 || validate_rc != 0))
