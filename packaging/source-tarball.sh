#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Writes soperator-metrics-VERSION.tar.gz (top directory
# soperator-metrics-VERSION/) from this checkout into DIR and prints its path.
# Inside git: tracked and new unignored files as they are on disk (build
# directories and other ignored files stay out); outside git: every file
# except build*/ and .git.
#
#   packaging/source-tarball.sh DIR
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${1:?usage: source-tarball.sh DIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
version=$(sed -n "s/^  version: '\([^']*\)',$/\1/p" "$root/meson.build" | head -1)
[[ -n $version ]] || { echo "source-tarball.sh: no version in meson.build" >&2; exit 1; }
name=soperator-metrics-$version
list=$(mktemp)
trap 'rm -f "$list"' EXIT
cd "$root"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	# Deleted but still tracked files are listed too; keep what exists.
	# deb-build/ and rpmbuild/ are build-deb.sh's and build-rpm.sh's default
	# output directories.
	git ls-files -z --cached --others --exclude-standard |
		while IFS= read -r -d '' f; do
			if [[ -f $f && $f != deb-build/* && $f != rpmbuild/* ]]; then printf '%s\0' "$f"; fi
		done | sort -zu >"$list"
else
	find . -path ./.git -prune -o -path './build*' -prune -o -path ./deb-build -prune \
		-o -path ./rpmbuild -prune -o -type f -printf '%P\0' |
		sort -z >"$list"
fi
# Owner and group fixed, so the tarball does not depend on who builds it.
tar --null -T "$list" --transform "s,^,$name/," --owner=0 --group=0 --numeric-owner \
	-czf "$out/$name.tar.gz"
echo "$out/$name.tar.gz"
