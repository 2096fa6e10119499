# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by the scripts that build Slurm releases Debian does not package
# (25.11, 26.05) from their upstream release archives: `git archive` of
# SchedMD's tags, each listed with its SHA-256 in a SHA256SUMS file beside
# it. The directory is $SM_SLURM_ARCHIVES, by default ../shared/slurm-src
# beside the checkout (for a git worktree elsewhere: beside the main
# checkout it belongs to). The caller defines fail().

slurm_archive_dir() {
	if [[ -n ${SM_SLURM_ARCHIVES:-} ]]; then
		echo "$SM_SLURM_ARCHIVES"
		return
	fi
	local root common
	root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
	if [[ ! -d $root/../shared/slurm-src ]] &&
		common=$(git -C "$root" rev-parse --path-format=absolute --git-common-dir 2>/dev/null) &&
		[[ -d $common/../../shared/slurm-src ]]; then
		(cd "$common/../../shared/slurm-src" && pwd)
		return
	fi
	echo "$root/../shared/slurm-src"
}

# The SHA-256 that SHA256SUMS lists for slurm-VERSION.tar.xz (no hashing:
# cheap enough for cache keys).
slurm_archive_sum() {
	local dir file sum
	dir=$(slurm_archive_dir)
	file=slurm-$1.tar.xz
	[[ -r $dir/SHA256SUMS ]] || fail "no $dir/SHA256SUMS (set SM_SLURM_ARCHIVES)"
	sum=$(awk -v f="$file" '$2 == f || $2 == "*" f { print $1 }' "$dir/SHA256SUMS")
	[[ $sum =~ ^[0-9a-f]{64}$ ]] || fail "$file is not listed in $dir/SHA256SUMS"
	echo "$sum"
}

# Unpacks slurm-VERSION.tar.xz into DIR (which must not hold slurm-VERSION
# yet) after checking it against SHA256SUMS.
slurm_archive_unpack() {
	local version=$1 dest=$2 dir archive want
	dir=$(slurm_archive_dir)
	archive=$dir/slurm-$version.tar.xz
	want=$(slurm_archive_sum "$version")
	[[ -r $archive ]] || fail "no $archive (set SM_SLURM_ARCHIVES to the directory holding it)"
	[[ "$(sha256sum <"$archive" | cut -d' ' -f1)" == "$want" ]] ||
		fail "$archive does not match its SHA256SUMS entry ($want)"
	tar -C "$dest" -xJf "$archive" || fail "cannot unpack $archive"
	[[ -d $dest/slurm-$version ]] || fail "$archive does not unpack to slurm-$version/"
}
