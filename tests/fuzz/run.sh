#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# One bounded fuzz run, as the `fuzz` suite runs it (docs/testing.md):
#   run.sh FUZZER CORPUS_DIR NAME
# 1. runs every committed input of CORPUS_DIR and the regression inputs
#    extra_inputs.py makes for NAME, once each (a regression fails here);
# 2. fuzzes for SM_FUZZ_SECONDS (default 20) from that corpus; new inputs
#    go to a scratch directory, never into the checkout.
# A crash is kept in ./fuzz-artifacts/NAME/ (the build dir under meson
# test) and printed in base64, so a CI log is enough to reproduce it.
set -uo pipefail

(($# == 3)) || {
	echo "usage: run.sh FUZZER CORPUS_DIR NAME" >&2
	exit 2
}
exe=$1 corpus=$2 name=$3
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
secs=${SM_FUZZ_SECONDS:-20}
work=$(mktemp -d "${TMPDIR:-/tmp}/sm-fuzz-$name.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/new" "$work/seeds" "$work/large" || exit 1
/usr/bin/python3 "$here/extra_inputs.py" "$name" "$work/seeds" "$work/large" || exit 1

export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# rss_limit: a leak or an unbounded expansion fails instead of eating the
# machine; timeout: one input may take at most 10 s.
opts=(-rss_limit_mb=2048 -timeout=10)
# NAME.dict: tokens of the input language (keys, units, header names).
dict=()
if [[ -f $here/$name.dict ]]; then dict=(-dict="$here/$name.dict"); fi

keep_artifacts() {
	local f dest=fuzz-artifacts/$name
	for f in "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-*; do
		[[ -e $f ]] || continue
		mkdir -p "$dest" && cp "$f" "$dest/"
		echo "=== $name: failing input $(basename "$f") (kept in $PWD/$dest), base64:"
		base64 -w 76 "$f" | head -c 20000
		echo
	done
}

inputs=()
for f in "$corpus"/* "$work/seeds"/* "$work/large"/*; do
	[[ -f $f ]] && inputs+=("$f")
done
echo "=== $name: ${#inputs[@]} corpus and regression inputs"
if ((${#inputs[@]})) && ! "$exe" "${opts[@]}" "${inputs[@]}" >"$work/replay.log" 2>&1; then
	tail -n 60 "$work/replay.log"
	echo "=== $name: this input of the corpus fails: $(grep '^Running: ' "$work/replay.log" | tail -n 1 | cut -d' ' -f2-)"
	exit 1
fi

echo "=== $name: fuzzing for ${secs}s"
if ! "$exe" "${opts[@]}" "${dict[@]}" -max_total_time="$secs" -print_final_stats=1 \
	-artifact_prefix="$work/" "$work/new" "$corpus" "$work/seeds" >"$work/fuzz.log" 2>&1; then
	tail -n 80 "$work/fuzz.log"
	keep_artifacts
	exit 1
fi
grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb|#[0-9]+ +DONE)' "$work/fuzz.log"
exit 0
