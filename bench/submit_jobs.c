// SPDX-License-Identifier: GPL-2.0-or-later
// Submits held batch jobs (priority 0) through libslurm's
// slurm_submit_batch_job(), the call sbatch makes, and times each submit.
// Two modes:
//
//   submit_jobs --count N [--threads T]          N jobs as fast as possible
//   submit_jobs --rate R --duration S            R jobs/s for S seconds
//
// Common options: --users U (default 25) --uid-base B (default 20001):
// job k belongs to uid B + k % U (setting job_desc.user_id needs root or
// SlurmUser); --gid G (default: the uid); --partitions a,b,... (round robin, default: the default
// partition); --name NAME (job name prefix, default "bench").
//
// The paced mode is open loop: submit k is due at start + k/R whatever
// earlier submits took, and runs on one of --threads workers (default 8),
// so a slow controller shows up as latency, not as fewer submits. The
// latency of a submit is the wall time of the call, from the moment it was
// due (a submit that could not start on time counts its wait).
//
// Prints one JSON line: mode, submitted, errors, first error, seconds,
// rate, and latency in ms (median, p90, p99, max, mean) over successful
// submits. SLURM_CONF selects the cluster.
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long count = 0, threads = 0, users = 25;
static double rate = 0, duration = 0;
static uint32_t uid_base = 20001;
static long gid = -1;  // default: the uid
static char **partitions = NULL;
static int npartitions = 0;
static const char *name_prefix = "bench";

static atomic_long next_index;
static atomic_long errors;
static atomic_int first_error;
static double *latency_ms;  // by job index; < 0: failed
static double t_start;
static long total;  // jobs to submit

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void sleep_until(double t) {
  struct timespec ts;
  double left = t - now_s();
  if (left <= 0) return;
  ts.tv_sec = (time_t)left;
  ts.tv_nsec = (long)((left - ts.tv_sec) * 1e9);
  while (nanosleep(&ts, &ts) == -1 && errno == EINTR) {
  }
}

static char *env_vars[] = {"PATH=/usr/bin:/bin", "SOPERATOR_METRICS_BENCH=1",
                           NULL};

static int submit_one(long k) {
  job_desc_msg_t d;
  submit_response_msg_t *resp = NULL;
  char name[64];
  slurm_init_job_desc_msg(&d);
  snprintf(name, sizeof name, "%s-%ld", name_prefix, k);
  d.name = name;
  d.script = "#!/bin/sh\ntrue\n";
  d.environment = env_vars;
  d.env_size = 2;
  d.user_id = uid_base + (uint32_t)(k % users);
  d.group_id = gid >= 0 ? (uint32_t)gid : d.user_id;
  d.priority = 0;  // held
  d.work_dir = "/tmp";
  d.min_nodes = 1;
  d.min_cpus = 1 + (uint32_t)(k % 4);
  d.time_limit = 60;
  if (npartitions) d.partition = partitions[k % npartitions];
  int rc = slurm_submit_batch_job(&d, &resp);
  if (rc != SLURM_SUCCESS) {
    int e = errno;
    int zero = 0;
    atomic_compare_exchange_strong(&first_error, &zero, e ? e : -1);
    return -1;
  }
  slurm_free_submit_response_response_msg(resp);
  return 0;
}

static void *worker(void *arg) {
  (void)arg;
  for (;;) {
    long k = atomic_fetch_add(&next_index, 1);
    if (k >= total) return NULL;
    double due = now_s();
    if (rate > 0) {
      due = t_start + k / rate;
      sleep_until(due);
    }
    int rc = submit_one(k);
    latency_ms[k] = rc == 0 ? (now_s() - due) * 1e3 : -1;
    if (rc) atomic_fetch_add(&errors, 1);
  }
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

// Nearest-rank percentile of a sorted array.
static double pct(const double *v, long n, double p) {
  if (n == 0) return 0;
  long r = (long)(p / 100.0 * n + 0.999999);
  if (r < 1) r = 1;
  if (r > n) r = n;
  return v[r - 1];
}

static void usage(void) {
  fprintf(stderr,
          "usage: submit_jobs --count N [--threads T] | --rate R --duration S "
          "[--threads T]\n"
          "       [--users U] [--uid-base B] [--gid G] [--partitions a,b] [--name P]\n");
  exit(2);
}

int main(int argc, char **argv) {
  static const struct option opts[] = {
      {"count", required_argument, 0, 'n'},
      {"threads", required_argument, 0, 't'},
      {"rate", required_argument, 0, 'r'},
      {"duration", required_argument, 0, 'd'},
      {"users", required_argument, 0, 'u'},
      {"uid-base", required_argument, 0, 'b'},
      {"gid", required_argument, 0, 'g'},
      {"partitions", required_argument, 0, 'p'},
      {"name", required_argument, 0, 'N'},
      {0, 0, 0, 0}};
  int c;
  while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
    switch (c) {
      case 'n': count = atol(optarg); break;
      case 't': threads = atol(optarg); break;
      case 'r': rate = atof(optarg); break;
      case 'd': duration = atof(optarg); break;
      case 'u': users = atol(optarg); break;
      case 'b': uid_base = (uint32_t)strtoul(optarg, NULL, 10); break;
      case 'g': gid = atol(optarg); break;
      case 'N': name_prefix = optarg; break;
      case 'p': {
        char *s = strdup(optarg), *save = NULL;
        for (char *t = strtok_r(s, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
          partitions = realloc(partitions, sizeof(char *) * (npartitions + 1));
          partitions[npartitions++] = t;
        }
        break;
      }
      default: usage();
    }
  }
  if ((count > 0) == (rate > 0) || users < 1) usage();
  if (rate > 0 && duration <= 0) usage();
  total = count > 0 ? count : (long)(rate * duration + 0.5);
  if (threads < 1) threads = count > 0 ? 4 : 8;
  latency_ms = calloc(total, sizeof(double));
  if (!latency_ms) return 1;

  slurm_init(NULL);
  pthread_t *tids = calloc(threads, sizeof(pthread_t));
  t_start = now_s() + 0.01;
  for (long i = 0; i < threads; ++i) pthread_create(&tids[i], NULL, worker, NULL);
  for (long i = 0; i < threads; ++i) pthread_join(tids[i], NULL);
  double seconds = now_s() - t_start;

  long ok = 0;
  double sum = 0;
  for (long i = 0; i < total; ++i) {
    if (latency_ms[i] >= 0) {
      latency_ms[ok++] = latency_ms[i];
      sum += latency_ms[i];
    }
  }
  qsort(latency_ms, ok, sizeof(double), cmp_double);
  int fe = atomic_load(&first_error);
  printf(
      "{\"mode\":\"%s\",\"submitted\":%ld,\"errors\":%ld,\"first_error\":\"%s\","
      "\"seconds\":%.3f,\"rate\":%.1f,\"latency_ms\":{\"median\":%.3f,"
      "\"p90\":%.3f,\"p99\":%.3f,\"max\":%.3f,\"mean\":%.3f}}\n",
      rate > 0 ? "paced" : "bulk", ok, atomic_load(&errors),
      fe ? slurm_strerror(fe > 0 ? fe : SLURM_ERROR) : "", seconds,
      ok / (seconds > 0 ? seconds : 1), pct(latency_ms, ok, 50),
      pct(latency_ms, ok, 90), pct(latency_ms, ok, 99),
      ok ? latency_ms[ok - 1] : 0, ok ? sum / ok : 0);
  slurm_fini();
  return ok == total ? 0 : 1;
}
