#!/usr/bin/env bash
# The cost walkthrough: one interactive workload (Llama-3-70B, a day of diurnal traffic) served
# four ways on A100-80GB GPUs, simulated and compared in one report (README.md).
#   examples/cost-walkthrough/run.sh [TIDAL] [OUT_DIR]
# TIDAL defaults to `tidal` on PATH (e.g. build/cli/tidal); OUT_DIR to out/cost-walkthrough.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
tidal=${1:-tidal}
out=${2:-out/cost-walkthrough}
mkdir -p "$out"

runs=()
for scenario in 1-static-bf16 2-continuous-bf16 3-continuous-int4 4-autoscaled-int4; do
  "$tidal" simulate "$here/$scenario.json" --out "$out/$scenario" --quiet >"$out/$scenario.txt"
  runs+=("$out/$scenario")
done

# How many 4-GPU static-batching replicas would the SLO need? (Resumable: a rerun reuses it.)
"$tidal" plan "$here/1-static-bf16.json" --search "$here/static-replicas.json" \
  --slo 'attainment>=99%' --out "$out/static-sizing" --quiet >"$out/static-sizing.txt"

"$tidal" report "${runs[@]}" "$out/static-sizing" --out "$out/report.html"
