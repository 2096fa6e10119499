# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by scripts/slurm-source.sh: `apt-get source` from the Debian
# archive this machine already uses, without touching its apt configuration.
#
# apt_source_setup DIR [SUITE]
#   Writes a private apt configuration into DIR (created; the caller removes
#   it): deb-src entries for every Debian archive entry of this machine
#   (suite CODENAME or CODENAME-*, from sources.list, sources.list.d/*.list
#   and the deb822 sources.list.d/*.sources alike, URIs, options and keys as
#   they are there), plus, with SUITE, the CODENAME entry again for that
#   suite (e.g. trixie). Then `apt-get update` fills DIR's own package lists.
#   Sets apt_opts, the options that make apt-get and apt-cache use DIR only:
#   /etc/apt, /var/lib/apt/lists and /var/cache/apt are never written.
# apt_source_versions PACKAGE
#   Prints the versions of source PACKAGE the archive has, one a line.
#
# $SM_APT_ETC (default /etc/apt) is where the entries are read from: tests
# point it at an apt configuration of their own. The caller defines fail()
# and may set $log (apt's output goes there).

apt_opts=()

# One-line entries ("deb [opts] URI SUITE COMPONENT...") and deb822 stanzas
# of type deb whose suite is CODENAME or CODENAME-*, as deb822 deb-src
# stanzas (deb822 can carry every option, one-line ones included). With
# SUITE, the first CODENAME entry once more with Suites: SUITE.
_apt_derive() {
	local etc=$1 codename=$2 extra=$3 f
	local files=()
	[[ -f $etc/sources.list ]] && files+=("$etc/sources.list")
	for f in "$etc"/sources.list.d/*.list "$etc"/sources.list.d/*.sources; do
		[[ -f $f ]] && files+=("$f")
	done
	((${#files[@]})) || return 0
	awk -v codename="$codename" -v extra="$extra" '
		function keep(suite) { return suite == codename || index(suite, codename "-") == 1 }
		function emit(uris, suites, comps, opts,   s) {
			if (out++) print ""
			print "Types: deb-src"
			print "URIs: " uris
			print "Suites: " suites
			if (comps != "") print "Components: " comps
			if (opts != "") printf "%s", opts
		}
		# The first CODENAME entry, again for the extra suite.
		function emit_extra(uris, comps, opts) {
			if (extra == "" || done_extra) return
			done_extra = 1
			emit(uris, extra, comps, opts)
		}
		# deb822 option name for a one-line [key=value] option.
		function optname(k) {
			if (k == "signed-by") return "Signed-By"
			if (k == "trusted") return "Trusted"
			if (k == "arch") return "Architectures"
			if (k == "lang") return "Languages"
			if (k == "check-valid-until") return "Check-Valid-Until"
			return ""
		}
		function flush(   n, i, s, suites, a) {
			if (is822 && is_deb && uris != "") {
				suites = ""
				n = split(stz_suites, a, " ")
				for (i = 1; i <= n; i++) if (keep(a[i])) suites = suites (suites == "" ? "" : " ") a[i]
				if (suites != "") {
					emit(uris, suites, comps, opts)
					for (i = 1; i <= n; i++) if (a[i] == codename) emit_extra(uris, comps, opts)
				}
			}
			is_deb = 0; uris = ""; stz_suites = ""; comps = ""; opts = ""; cont = ""
		}
		FNR == 1 { flush(); is822 = (FILENAME ~ /\.sources$/) }
		/^[[:space:]]*#/ { next }
		is822 && /^[[:space:]]*$/ { flush(); next }
		is822 && /^[[:space:]]/ {
			# Continuation line (an inline Signed-By key): kept with its field.
			if (cont != "") opts = opts $0 "\n"
			next
		}
		is822 {
			cont = ""
			key = $1; sub(/:$/, "", key)
			val = $0; sub(/^[^:]*:[[:space:]]*/, "", val)
			if (key == "Types") { n = split(val, t, " "); for (i = 1; i <= n; i++) if (t[i] == "deb") is_deb = 1 }
			else if (key == "URIs") uris = val
			else if (key == "Suites") stz_suites = val
			else if (key == "Components") comps = val
			else if (key == "Enabled" && tolower(val) == "no") is_deb = 0
			else { opts = opts key ": " val "\n"; cont = key }
			next
		}
		# One-line format.
		$1 == "deb" {
			line = $0; sub(/^deb[[:space:]]+/, "", line)
			o = ""
			if (substr(line, 1, 1) == "[") {
				e = index(line, "]")
				n = split(substr(line, 2, e - 2), kv, " ")
				for (i = 1; i <= n; i++) {
					split(kv[i], p, "=")
					name = optname(p[1])
					if (name != "") { v = p[2]; gsub(",", " ", v); o = o name ": " v "\n" }
				}
				line = substr(line, e + 1)
			}
			n = split(line, w, " ")
			if (n < 2 || !keep(w[2])) next
			c = ""
			for (i = 3; i <= n; i++) c = c (c == "" ? "" : " ") w[i]
			emit(w[1], w[2], c, o)
			if (w[2] == codename) emit_extra(w[1], c, o)
		}
		END { flush() }' "${files[@]}"
}

apt_source_setup() {
	local dir=$1 extra=${2:-} etc=${SM_APT_ETC:-/etc/apt} codename entries
	local out=${log:-/dev/stderr}
	# shellcheck disable=SC1091 # os-release is a system file
	codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
	[[ -n $codename ]] || fail "cannot determine the Debian codename from /etc/os-release"
	entries=$(_apt_derive "$etc" "$codename" "$extra")
	[[ -n $entries ]] ||
		fail "no apt entry for suite $codename in $etc/sources.list or $etc/sources.list.d: cannot derive deb-src entries"
	mkdir -p "$dir/sources.list.d" "$dir/lists/partial" "$dir/cache/archives/partial"
	printf '%s\n' "$entries" >"$dir/sources.list.d/deb-src.sources"
	apt_opts=(-o "Dir::Etc::SourceList=/dev/null" -o "Dir::Etc::SourceParts=$dir/sources.list.d"
		-o "Dir::State::Lists=$dir/lists" -o "Dir::Cache=$dir/cache"
		-o "Dir::Cache::pkgcache=" -o "Dir::Cache::srcpkgcache=")
	{
		echo "+ deb-src entries derived from $etc:"
		cat "$dir/sources.list.d/deb-src.sources"
		echo "+ apt-get update (private lists in $dir)"
	} >>"$out"
	apt-get "${apt_opts[@]}" update >>"$out" 2>&1 || fail "apt-get update of the deb-src entries failed"
}

# apt-cache showsrc takes no =version, so all versions are listed. No grep
# -q: under pipefail its early exit would SIGPIPE apt-cache.
apt_source_versions() {
	apt-cache "${apt_opts[@]}" showsrc "$1" 2>/dev/null | sed -n 's/^Version: //p' | sort -u
}
