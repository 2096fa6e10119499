#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Everything a fresh Debian 12 machine needs to build, test and benchmark
# soperator-metrics, from Debian's archive only. Idempotent: installs only
# what is missing, never starts the packaged services.
set -euo pipefail

fail() {
	echo "install-deps.sh: $*" >&2
	exit 1
}
# shellcheck source=scripts/lib/apt.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/apt.sh"

[[ $(id -u) == 0 ]] || fail "run as root (apt-get install)"

packages=(
	# build
	build-essential meson ninja-build pkg-config dpkg-dev
	# meson compiles through ccache when it is installed: scripts/test
	# builds the Slurm-free libraries in five build directories
	ccache
	libssl-dev libyaml-cpp-dev libcrypt-dev zlib1g-dev nlohmann-json3-dev
	libgtest-dev libgmock-dev libbenchmark-dev
	# fuzzing and sanitizer builds (docs/testing.md): libFuzzer and the
	# sanitizer runtimes come with clang's compiler-rt
	clang libclang-rt-14-dev
	# the g++-11 stage of scripts/test: GCC 11 is EL9's compiler, the
	# oldest the RPM spec builds with (docs/install.md)
	gcc-11 g++-11
	# Slurm 22.05.8 daemons and clients (Debian's), and what building
	# 24.11.5 from Debian's tarball needs; 25.11 and 26.05 (release
	# archives) also want libhttp-parser (slurmctld's HTTP server, where
	# MetricsType answers) and libjwt (auth/jwt: MetricsAuthUsers tokens)
	munge libmunge-dev slurmctld slurmd slurm-client libslurm-dev libjson-c-dev
	libhttp-parser-dev libjwt-dev
	# test clusters with --accounting: MariaDB, Debian's slurmdbd and its
	# MySQL plugin (22.05.8); the MySQL client library 24.11.5's
	# accounting_storage/mysql is built against
	mariadb-server slurmdbd slurm-wlm-mysql-plugin libmariadb-dev
	# real scrapers and checkers
	prometheus victoria-metrics python3 python3-prometheus-client curl openssl
	# benchmarks and packaging
	wrk hyperfine valgrind rpm rpmlint iproute2
	# SchedMD's slurm.spec built on Debian (scripts/slurm-rpms.sh, which
	# lists the role of each): what stands in for its BuildRequires, and
	# libhttp-parser-dev for slurmctld's HTTP server (MetricsType)
	autoconf automake bzip2 perl libperl-dev libreadline-dev libpam0g-dev libhttp-parser-dev
	# stacks of a hung slurmctld (tests/integration/test_shutdown.py)
	gdb
	# packaging tests: .deb checks, rpm2cpio's archive, example YAML; a
	# throwaway Debian root to install SchedMD's packages and ours into
	lintian cpio python3-yaml debootstrap
	# docs/soperator.md's manifests against Soperator's CRD schemas
	# (tests/packaging/test_soperator.py)
	python3-jsonschema
)
install_missing "${packages[@]}"
# What SchedMD's debian/ needs to build their packages of the newest
# release (scripts/slurm-smd-debs.sh): their Build-Depends, from Debian's
# archive, installed now so that no build later waits on apt.
"$(dirname "${BASH_SOURCE[0]}")/slurm-smd-debs.sh" --build-deps 26.05.3 ||
	fail "SchedMD's Build-Depends for 26.05.3"
echo "install-deps.sh: all dependencies present" >&2
