#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Installs the soperator-metrics .deb lying beside this script into a root
# whose Slurm comes from SchedMD-style slurm-smd packages, such as
# Soperator's controller image (docs/soperator.md). Run as root inside that
# root: the image layer of docs/examples/soperator-controller.Dockerfile runs it, and
# tests/packaging/test_soperator_image.py runs it in a throwaway root.
#
#   soperator-install-plugin.sh [--plugin-dir DIR]
#
#   DIR   the PluginDir slurm.conf names, when it is not where the package
#         puts the plugins: each plugin is linked into it. Default:
#         /usr/lib/slurm when it exists (Soperator's PluginDir, where its
#         images link every file of /usr/lib/<triplet>/slurm), else none.
#
# It refuses, before installing anything, a plugin built for another Slurm
# than the installed slurmctld: slurmctld compares only the release number
# (26.05.3), not the vendor's build (26.05.3-nebius-2), so it would load a
# plugin built from another tree and read its structures wrongly.
set -euo pipefail

die() {
	echo "soperator-install-plugin.sh: $*" >&2
	exit 1
}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
plugin_dir=''
[[ -d /usr/lib/slurm ]] && plugin_dir=/usr/lib/slurm
while (($#)); do
	case $1 in
	--plugin-dir) plugin_dir=${2:?--plugin-dir needs a directory}; shift 2 ;;
	*) sed -n '8,15s/^# \{0,1\}//p' "${BASH_SOURCE[0]}" >&2; exit 2 ;;
	esac
done
[[ $(id -u) == 0 ]] || die "run as root"

shopt -s nullglob
debs=("$here"/soperator-metrics_*.deb)
((${#debs[@]} == 1)) ||
	die "expected one soperator-metrics_*.deb in $here, found ${#debs[@]}"
deb=${debs[0]}

ctld_package=$(dpkg-query -W -f='${Version}' slurm-smd-slurmctld 2>/dev/null) ||
	die "slurm-smd-slurmctld is not installed: this root's Slurm is not SchedMD's packages"
# "slurm 26.05.3-nebius-2": SLURM_VERSION_STRING of the tree slurmctld was
# built from, vendor suffix included.
running=$(slurmctld -V) || die "slurmctld -V failed"
running=${running#slurm }

# What the plugins were built for: a marker compiled into each from the
# tree's config.h, "soperator-metrics-build:0.1.0:26.05.3-nebius-2:end"
# (the same the plugin logs at start: "version 0.1.0, built for Slurm ...").
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dpkg-deb -x "$deb" "$tmp"
mapfile -t plugins < <(find "$tmp" -name '*_soperator.so' | sort)
((${#plugins[@]} > 0)) || die "$deb holds no *_soperator.so"
for so in "${plugins[@]}"; do
	built=$(grep -a -o 'soperator-metrics-build:[0-9A-Za-z.+~-]*:[0-9A-Za-z.+~-]*:end' "$so" | sort -u) ||
		die "$(basename "$so") does not say which Slurm it was built for"
	[[ $built != *$'\n'* ]] || die "$(basename "$so") says two builds: $built"
	built=${built%:end}
	built=${built##*:}
	[[ $built == "$running" ]] ||
		die "$(basename "$deb") was built for Slurm $built, but slurmctld here is Slurm $running (package slurm-smd-slurmctld $ctld_package): build it from the source slurmctld was built from (docs/soperator.md)"
done

# apt checks the package's exact Depends on slurm-smd-slurmctld; it needs
# package lists only for libraries the root lacks.
if ! apt-get install -y --no-install-recommends "$deb"; then
	apt-get update
	apt-get install -y --no-install-recommends "$deb"
fi

mapfile -t installed < <(dpkg -L soperator-metrics | grep '_soperator\.so$')
((${#installed[@]} > 0)) || die "the installed package holds no plugin"
for so in "${installed[@]}"; do
	missing=$(ldd "$so" | grep 'not found' || true)
	[[ -z $missing ]] || die "$so: libraries not found:"$'\n'"$missing"
	if [[ -n $plugin_dir && $(dirname "$so") != "$plugin_dir" ]]; then
		ln -sfn "$so" "$plugin_dir/$(basename "$so")"
		echo "soperator-install-plugin.sh: linked $plugin_dir/$(basename "$so") -> $so"
	fi
done
echo "soperator-install-plugin.sh: soperator-metrics $(dpkg-query -W -f='${Version}' soperator-metrics) installed for Slurm $running"
