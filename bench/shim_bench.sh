#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by the benches that replay synthetic clusters through the offline
# shim (shim_scale.sh, node_groups_scale.sh): where the shim and its
# carrier are, a scratch directory removed at exit, and the plugin's own
# collection time from `render --timings`.

# shim_bench_setup BUILD_DIR: sets shim, plugin and work, or exits.
shim_bench_setup() {
	local build=$1
	shim=$build/shim/soperator-metrics-shim
	plugin=$build/shim/job_submit_soperator_shim.so
	[[ -x $shim && -f $plugin ]] || { echo "build $build first (scripts/test builds it)" >&2; exit 1; }
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT
}

# The seconds of `--timings`' "collect" line (soperator_metrics_collect_now:
# the copy under the shim's locks and the snapshot's build), from stdin.
collect_seconds() {
	sed -n 's/.*timing: collect[^:]*: \([0-9.]*\) s.*/\1/p'
}
