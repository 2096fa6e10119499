#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Replays synthetic clusters through the offline shim and the real plugin:
# generate the JSON dumps, then time `render` end to end (read JSON, fill
# the controller's records, one collection, fetch /metrics) and its peak
# memory. Prints one table row per size.
#
#   bench/shim_scale.sh [BUILD_DIR]     default: build-22.05.8
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/shim_bench.sh
. "$root/bench/shim_bench.sh"
shim_bench_setup "${1:-$root/build-22.05.8}"

printf '| nodes | jobs | render wall | peak RSS | collection | body | series |\n'
printf '|---|---|---|---|---|---|---|\n'
for size in "1000 10000" "10000 50000" "10000 100000"; do
	read -r nodes jobs <<<"$size"
	"$shim" generate --nodes "$nodes" --jobs "$jobs" --out "$work/c" >/dev/null 2>&1
	# The cluster side only, as the table in docs/performance.md was measured
	# (bench/accounting_shim_bench.py renders the accounting dumps too).
	/usr/bin/time -f '%e %M' -o "$work/time" "$shim" render -q --timings --plugin "$plugin" \
		"$work"/c/{nodes,jobs,sdiag}.json >"$work/out" 2>"$work/timings"
	read -r wall kib <"$work/time"
	collect=$(collect_seconds <"$work/timings")
	series=$(grep -vc '^#' "$work/out")
	mb=$(awk -v b="$(stat -c %s "$work/out")" 'BEGIN { printf "%.1f", b / 1e6 }')
	printf '| %s | %s | %s s | %d MiB | %s s | %s MB | %s |\n' "$nodes" "$jobs" "$wall" \
		$((kib / 1024)) "$collect" "$mb" "$series"
	rm -rf "$work/c"
done
