# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by the scripts that install Debian packages. The caller defines
# fail() and may set $log (apt's output goes there, else to stderr).

pkg_installed() {
	# dpkg -s also succeeds for removed-but-not-purged packages: check the
	# status line.
	[[ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" == "install ok installed" ]]
}

# Installs the packages that are missing, without starting their services:
# tests run their own daemons, never the packaged systemd units.
install_missing() {
	local missing=() p policy=/usr/sbin/policy-rc.d made_policy=0 rc=0
	local out=${log:-/dev/stderr}
	for p in "$@"; do pkg_installed "$p" || missing+=("$p"); done
	((${#missing[@]} == 0)) && return 0
	if [[ ! -e $policy ]]; then
		printf '#!/bin/sh\nexit 101\n' >"$policy"
		chmod +x "$policy"
		made_policy=1
	fi
	echo "+ apt-get install ${missing[*]}" >>"$out"
	{
		# Another install may hold dpkg's lock (a test's, a parallel build's):
		# wait for it instead of failing.
		DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y \
			--no-install-recommends "${missing[@]}" ||
			{ apt-get -o DPkg::Lock::Timeout=600 update &&
				DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y \
					--no-install-recommends "${missing[@]}"; }
	} >>"$out" 2>&1 || rc=$?
	((made_policy)) && rm -f "$policy"
	((rc == 0)) || fail "apt-get install ${missing[*]} failed"
}
