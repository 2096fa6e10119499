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
	libssl-dev libyaml-cpp-dev libcrypt-dev zlib1g-dev nlohmann-json3-dev
	libgtest-dev libgmock-dev libbenchmark-dev
	# fuzzing and sanitizer builds (docs/testing.md): libFuzzer and the
	# sanitizer runtimes come with clang's compiler-rt
	clang libclang-rt-14-dev
	# Slurm 22.05.8 daemons and clients (Debian's), and what building
	# 24.11.5 from Debian's tarball needs
	munge libmunge-dev slurmctld slurmd slurm-client libslurm-dev libjson-c-dev
	# test clusters with --accounting: MariaDB, Debian's slurmdbd and its
	# MySQL plugin (22.05.8); the MySQL client library 24.11.5's
	# accounting_storage/mysql is built against
	mariadb-server slurmdbd slurm-wlm-mysql-plugin libmariadb-dev
	# real scrapers and checkers
	prometheus victoria-metrics python3 python3-prometheus-client curl openssl
	# benchmarks and packaging
	wrk hyperfine valgrind rpm rpmlint iproute2
	# stacks of a hung slurmctld (tests/integration/test_shutdown.py)
	gdb
	# packaging tests: .deb checks, rpm2cpio's archive, example YAML
	lintian cpio python3-yaml
)
install_missing "${packages[@]}"
echo "install-deps.sh: all dependencies present" >&2
