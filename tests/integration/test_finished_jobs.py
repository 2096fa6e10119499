#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""JobSource=accounting on a real cluster (docs/configuration.md, "Finished
jobs"): with MinJobAge=5 (slurmctld purges a finished job within ~15 s), a
failed (exit 1), a cancelled and a completed job stay in slurm_job_info,
with the state, reason and end time slurmctld showed, after slurmctld has
forgotten them, for AccountingJobsLookback after their end, and then go.
A running job is served throughout.

usage: test_finished_jobs.py VERSION PLUGIN_DIR
"""

import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from harness import Cluster, series, wait_for  # noqa: E402

LOOKBACK = 45  # seconds; long enough to see the jobs purged first


def main():
    version, plugin_dir = sys.argv[1], sys.argv[2]
    t0 = time.time()
    c = Cluster(version, plugin_dir, conf_extra=["MinJobAge=5"],
                metrics_conf_extra=["JobSource=accounting",
                                    f"AccountingJobsLookback={LOOKBACK}s"])
    failures = []
    try:
        assert "JobSource=accounting: finished jobs are served for 45 s" in c.ctld_log(), \
            c.ctld_log()[-2000:]
        # The job to cancel first: waiting for it to run must not let the
        # other two end and be purged (MinJobAge=5) before they are read.
        jobs = {"CANCELLED": c.sbatch("-J", "stopped", "--wrap", "sleep 600")}
        wait_for("the job to cancel runs", lambda: c.run(
            "squeue", "-h", "-j", str(jobs["CANCELLED"]), "-o", "%T").strip() == "RUNNING",
            timeout=60)
        c.run("scancel", str(jobs["CANCELLED"]))
        jobs["FAILED"] = c.sbatch("-J", "fails", "--wrap", "exit 1")
        jobs["COMPLETED"] = c.sbatch("-J", "works", "--wrap", "true")
        running = c.sbatch("-J", "keeps-running", "--wrap", "sleep 600")

        # What slurmctld says of each job while it still holds it, read as
        # soon as the job has ended (it is purged 5 s later).
        said = {}

        def ended():
            for state, j in jobs.items():
                if state in said:
                    continue
                fields = c.job_text(j)
                if fields.get("JobState") == state:
                    said[state] = fields
            return len(said) == len(jobs)
        wait_for("the three jobs ended", ended, timeout=60, interval=0.2)

        def held():
            return {j["job_id"] for j in c.squeue_json()}
        wait_for("slurmctld to purge the three jobs (MinJobAge=5)",
                 lambda: not set(jobs.values()) & held(), timeout=60, interval=1)
        purged_at = time.time()
        assert running in held(), "the running job must still be held"
        c.wait_collections(2)

        expo = c.expo()
        ends = {}
        for state, j in jobs.items():
            found = series(expo, "slurm_job_info", job_id=str(j))
            if len(found) != 1:
                failures.append(f"job {j} ({state}) purged by slurmctld: "
                                f"expected in slurm_job_info, got {found}")
                continue
            labels = found[0][0]
            end = int(labels["end_time"])
            ends[state] = end
            want = {"job_state": state, "finished_time": str(end), "user_id": "",
                    "user_mail": "", "job_name": said[state]["JobName"],
                    "job_state_reason": said[state]["Reason"]}
            for k, v in want.items():
                if labels.get(k) != v:
                    failures.append(f"job {j} ({state}): {k}={labels.get(k)!r}, want {v!r}")
            if purged_at > end + LOOKBACK:
                failures.append(f"job {j}: purged only after the lookback; test too slow")
        if not series(expo, "slurm_job_info", job_id=str(running)):
            failures.append(f"running job {running} not served")
        if not series(expo, "slurm_node_job", job_id=str(jobs["FAILED"])):
            failures.append("the failed job lost its slurm_node_job edge")
        print(f"ok: purged jobs still served {purged_at - max(ends.values() or [0]):.0f} s "
              f"after their end ({time.time() - t0:.0f}s)")

        # Then gone, once end_time + lookback has passed.
        if ends:
            last = max(ends.values())
            time.sleep(max(0, last + LOOKBACK + 1 - time.time()))
            c.wait_collections(2)
            expo = c.expo()
            for state, j in jobs.items():
                found = series(expo, "slurm_job_info", job_id=str(j))
                if found:
                    failures.append(f"job {j} ({state}) still served after "
                                    f"end + {LOOKBACK} s: {found}")
            if not series(expo, "slurm_job_info", job_id=str(running)):
                failures.append(f"running job {running} not served at the end")
            print(f"ok: gone after end + {LOOKBACK} s ({time.time() - t0:.0f}s)")
        c.run("scancel", str(running), check=False)
    finally:
        c.cleanup()
    for f in failures:
        print("FAIL:", f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
