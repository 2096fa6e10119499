#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# What Soperator's topology labels cost a collection (docs/performance.md,
# "Topology labels"): a synthetic cluster replayed through the offline shim
# and the real plugin, once without and once with a slurm.conf of 4
# NodeSet= lines (every node in one) and a topology of base blocks of 18
# nodes (an NVL72 rack's GPU nodes), as `scontrol show topology` prints
# them. Prints the median of 3 collections per row (the shim's own
# "collect" timing: the copy under the shim's locks and the snapshot's
# build, labels included) and the ratio of the two, measured within one
# run.
#
#   bench/node_groups_scale.sh [BUILD_DIR]     default: build-24.11.5 (23.11+)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/shim_bench.sh
. "$root/bench/shim_bench.sh"
shim_bench_setup "${1:-$root/build-24.11.5}"

# The median "collect" time of 3 renders of the given inputs, in seconds.
collect_median() {
	for _ in 1 2 3; do
		"$shim" render -q --timings --plugin "$plugin" "$@" 2>&1 >/dev/null |
			collect_seconds
	done | sort -n | sed -n 2p
}

printf '| nodes | blocks | collect, no groups | collect, NodeSets and blocks | ratio |\n'
printf '|---|---|---|---|---|\n'
for nodes in 2000 10000 30000; do
	"$shim" generate --nodes "$nodes" --jobs 2000 --out "$work/c" >/dev/null 2>&1
	python3 - "$work" <<'EOF'
import json, sys
work = sys.argv[1]
names = [n["name"] for n in json.load(open(f"{work}/c/nodes.json"))["nodes"]]
with open(f"{work}/topology.txt", "w") as f:
    for b, i in enumerate(range(0, len(names), 18)):
        f.write(f"BlockName=nvl{b} BlockIndex={b} Nodes={','.join(names[i:i + 18])} BlockSize=18\n")
with open(f"{work}/slurm.conf", "w") as f:
    for k in range(4):
        f.write(f"NodeSet=set{k} Nodes={','.join(names[k::4])}\n")
EOF
	blocks=$(wc -l <"$work/topology.txt")
	base=$(collect_median "$work"/c/{nodes,jobs,sdiag}.json)
	groups=$(collect_median "$work"/c/{nodes,jobs,sdiag}.json "$work/slurm.conf" "$work/topology.txt")
	ratio=$(awk -v a="$groups" -v b="$base" 'BEGIN { printf "%.1f", a / b }')
	printf '| %s | %s | %s s | %s s | %s |\n' "$nodes" "$blocks" "$base" "$groups" "$ratio"
	rm -rf "$work/c"
done
