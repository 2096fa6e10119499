#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Builds the soperator-metrics RPMs (binary and source) for one Slurm release
# with rpmbuild, and prints the binary RPM's path (last line of stdout).
#
#   packaging/rpm/build-rpm.sh [--slurm-src TREE | --slurm-tarball FILE]
#                              [--plugindir DIR] [--outdir DIR]
#                              [--packager WHO] [--sign KEY] SLURM_VERSION
#
#   TREE       configured source tree of exactly SLURM_VERSION (default:
#              scripts/slurm-source.sh SLURM_VERSION, which fetches and
#              configures 22.05.8 or 24.11.5 from Debian's archive)
#   FILE       instead of a tree: Slurm's release tarball of exactly
#              SLURM_VERSION, the spec's Source1, configured by rpmbuild
#              itself in %build (the SRPM then carries it)
#   --plugindir  Slurm's PluginDir on the target (default /usr/lib64/slurm,
#              i.e. %{_libdir}/slurm, as Slurm's own RPMs use)
#   --outdir   where rpmbuild's tree goes (default ./rpmbuild); the RPMs end
#              up in OUTDIR/RPMS/<arch>/ and OUTDIR/SRPMS/
#   --packager the Packager header, "Name <email>" (default: $RPM_PACKAGER,
#              else the project's maintainers)
#   --sign     sign both RPMs with this GnuPG key (rpmsign --addsign; the
#              key must be in gpg's keyring, $GNUPGHOME if set)
#
# On a machine whose RPM database holds no packages (Debian with the rpm
# package), BuildRequires cannot be checked and rpmbuild runs with --nodeps.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
tree='' tarball='' plugindir='' outdir=$PWD/rpmbuild version='' sign=''
packager=${RPM_PACKAGER:-soperator-metrics maintainers <maintainers@users.noreply.a-seed-a1b08ef0.example>}
usage() {
	sed -n '5,23s/^# \{0,1\}//p' "${BASH_SOURCE[0]}" >&2
	exit 2
}
while (($#)); do
	case $1 in
	--slurm-src) tree=${2:?}; shift 2 ;;
	--slurm-tarball) tarball=${2:?}; shift 2 ;;
	--plugindir) plugindir=${2:?}; shift 2 ;;
	--outdir) outdir=${2:?}; shift 2 ;;
	--packager) packager=${2:?}; shift 2 ;;
	--sign) sign=${2:?}; shift 2 ;;
	-h | --help) usage ;;
	-*) usage ;;
	*) [[ -z $version ]] || usage; version=$1; shift ;;
	esac
done
[[ -n $version ]] || usage
command -v rpmbuild >/dev/null || { echo "build-rpm.sh: rpmbuild not found (Debian: apt-get install rpm)" >&2; exit 1; }
[[ -z $tree || -z $tarball ]] || usage
if [[ -n $tarball ]]; then
	[[ -f $tarball ]] || { echo "build-rpm.sh: no file $tarball" >&2; exit 1; }
elif [[ -z $tree ]]; then
	tree=$("$root/scripts/slurm-source.sh" "$version" | tail -n 1)
fi
[[ -z $tree ]] || tree=$(cd "$tree" && pwd)

mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd)
mkdir -p "$outdir"/{BUILD,BUILDROOT,RPMS,SOURCES,SPECS,SRPMS}
"$root/packaging/source-tarball.sh" "$outdir/SOURCES" >/dev/null

# Packager is the builder's to set, not the spec's (Fedora's guidelines).
args=(--define "_topdir $outdir" --define "slurm_version $version"
	--define "packager $packager")
if [[ -n $tarball ]]; then
	cp -f "$tarball" "$outdir/SOURCES/"
	args+=(--define "slurm_tarball $(basename "$tarball")")
else
	args+=(--define "slurm_src $tree")
fi
[[ -z $plugindir ]] || args+=(--define "slurm_plugindir $plugindir")
if [[ -z "$(rpm -qa 2>/dev/null | head -n 1)" ]]; then
	echo "build-rpm.sh: empty RPM database (not an RPM system): rpmbuild --nodeps" >&2
	args+=(--nodeps)
fi
log=$outdir/rpmbuild-$version.log
if ! rpmbuild -ba "${args[@]}" "$here/soperator-metrics.spec" >"$log" 2>&1; then
	echo "build-rpm.sh: rpmbuild failed; last lines of $log:" >&2
	tail -n 40 "$log" >&2
	exit 1
fi
# "Wrote: .../RPMS/x86_64/soperator-metrics-0.1.0-1.slurm22.05.8.x86_64.rpm"
rpm=$(sed -n 's/^Wrote: \(.*\/RPMS\/.*\/soperator-metrics-[0-9][^/]*\.rpm\)$/\1/p' "$log" |
	grep -v -e '-debuginfo-' -e '-debugsource-' | tail -n 1)
[[ -n $rpm && -f $rpm ]] || { echo "build-rpm.sh: no binary RPM in $log" >&2; exit 1; }
if [[ -n $sign ]]; then
	gpg=$(command -v gpg2 || command -v gpg) || { echo "build-rpm.sh: --sign needs gpg" >&2; exit 1; }
	mapfile -t built < <(sed -n 's/^Wrote: //p' "$log")
	if ! rpmsign --addsign --define "__gpg $gpg" --define "_gpg_name $sign" "${built[@]}" \
		>>"$log" 2>&1 </dev/null; then
		echo "build-rpm.sh: rpmsign failed; last lines of $log:" >&2
		tail -n 20 "$log" >&2
		exit 1
	fi
fi
sed -n 's/^Wrote: //p' "$log" >&2
echo "$rpm"
