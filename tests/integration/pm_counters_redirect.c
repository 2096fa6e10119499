// SPDX-License-Identifier: GPL-2.0-or-later
// Preloaded into the test cluster's slurmd alone (test-cluster.sh
// SM_SLURMD_PRELOAD; tests/integration/test_node_power.py): opens of
// /sys/cray/pm_counters/NAME, the two files acct_gather_energy/pm_counters
// reads (power and energy), open $SM_PM_COUNTERS_DIR/NAME instead, so that
// the test writes the node's readings.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char kPrefix[] = "/sys/cray/pm_counters/";

static const char *redirect(const char *path, char *buf, size_t size) {
  const char *dir = getenv("SM_PM_COUNTERS_DIR");
  if (!dir || !path || strncmp(path, kPrefix, sizeof(kPrefix) - 1) != 0)
    return path;
  snprintf(buf, size, "%s/%s", dir, path + sizeof(kPrefix) - 1);
  return buf;
}

FILE *fopen(const char *path, const char *mode) {
  static FILE *(*real)(const char *, const char *);
  char buf[PATH_MAX];
  if (!real) real = (FILE * (*)(const char *, const char *)) dlsym(RTLD_NEXT, "fopen");
  return real(redirect(path, buf, sizeof(buf)), mode);
}

FILE *fopen64(const char *path, const char *mode) {
  static FILE *(*real)(const char *, const char *);
  char buf[PATH_MAX];
  if (!real) real = (FILE * (*)(const char *, const char *)) dlsym(RTLD_NEXT, "fopen64");
  return real(redirect(path, buf, sizeof(buf)), mode);
}
