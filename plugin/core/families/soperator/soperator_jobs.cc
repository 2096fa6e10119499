// SPDX-License-Identifier: GPL-2.0-or-later
#include "families/soperator/soperator_jobs.h"

#include <optional>
#include <string>
#include <vector>

#include "base/go_parse.h"
#include "base/hostlist.h"
#include "families/family_rows.h"
#include "model/tres.h"

namespace sm {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;

// The families that follow from the jobs alone, and the one that also
// follows the clock (registered apart: family_registry.cc).
enum FromJobs { kJobInfo, kJobCpus, kJobMemory, kNodeJob };
const FamilyDef kFromJobs[] = {
    {"slurm_job_info",
     "Slurm job detail information",
     MetricType::kGauge,
     {"job_id", "job_state", "job_state_reason", "slurm_partition", "job_name",
      "user_name", "user_mail", "user_id", "standard_error", "standard_output",
      "array_job_id", "array_task_id", "submit_time", "start_time", "end_time",
      "finished_time"}},
    {"slurm_job_cpus", "CPUs allocated to a Slurm job", MetricType::kGauge,
     {"job_id"}},
    {"slurm_job_memory_bytes", "Memory allocated to a Slurm job in bytes",
     MetricType::kGauge, {"job_id"}},
    {"slurm_node_job",
     "Slurm job node information",
     MetricType::kGauge,
     {"job_id", "node_name", "nvlink_instance_group", "nodeset_name"}},
};
static_assert(std::size(kFromJobs) == kNodeJob + 1);
const FamilyDef kFromClock[] = {
    {"slurm_job_duration_seconds", "Slurm job duration in seconds",
     MetricType::kGauge, {"job_id"}},
};

// "" for absent and for exactly 0, as Soperator prints times.
std::string_view TimeLabel(Arena& arena, std::optional<int64_t> t) {
  return t && *t != 0 ? arena.StoreInt(*t) : std::string_view();
}

struct Resources {
  std::optional<int64_t> cpus;
  // A double, like the value it becomes: --mem is the user's to choose, and
  // MB x nodes x MiB can exceed int64 (converting that is undefined).
  std::optional<double> memory_bytes;
};

// jobAllocatedResources: allocated TRES, then requested TRES for whatever
// is still missing, then the job's cpus and memory-per-node x node count.
// `accounting`: slurmdbd's allocation_nodes, which the accounting source
// multiplies by, is 0 until the job has nodes (Soperator exporter spec,
// section 11), so a pending job gets no memory from that path.
Resources SelectResources(const Job& j, bool accounting) {
  Resources r;
  auto take = [&](std::string_view tres_string) {
    if (tres_string.empty()) return;
    const auto t = ParseTres(tres_string);
    if (!t) return;  // Soperator logs the parse error
    if (!r.cpus && t->cpus > 0) r.cpus = t->cpus;
    if (!r.memory_bytes && t->memory_bytes > 0)
      r.memory_bytes = static_cast<double>(t->memory_bytes);
  };
  take(j.tres_alloc);
  if (!r.cpus || !r.memory_bytes) take(j.tres_req);
  if (!r.cpus && j.cpus) r.cpus = *j.cpus;
  const bool has_node_count =
      j.node_count && !(accounting && j.state == JobBase::kPending);
  if (!r.memory_bytes && j.memory_per_node_mb && has_node_count)
    r.memory_bytes = static_cast<double>(*j.memory_per_node_mb) *
                     static_cast<double>(*j.node_count) * kMiB;
  return r;
}

}  // namespace

std::string_view AssignedNodeList(std::string_view nodes) {
  const std::string_view t = TrimSpace(nodes);
  if (t == "None assigned" || t == "(null)") return {};
  return t;
}

std::string_view JobBaseName(JobBase base) {
  switch (base) {
    case JobBase::kPending: return "PENDING";
    case JobBase::kRunning: return "RUNNING";
    case JobBase::kSuspended: return "SUSPENDED";
    case JobBase::kCompleted: return "COMPLETED";
    case JobBase::kCancelled: return "CANCELLED";
    case JobBase::kFailed: return "FAILED";
    case JobBase::kTimeout: return "TIMEOUT";
    case JobBase::kNodeFail: return "NODE_FAIL";
    case JobBase::kPreempted: return "PREEMPTED";
    case JobBase::kBootFail: return "BOOT_FAIL";
    case JobBase::kDeadline: return "DEADLINE";
    case JobBase::kOutOfMemory: return "OUT_OF_MEMORY";
  }
  return "";
}

std::span<const FamilyDef* const> SoperatorJobFamilies() {
  return FamilyList<kFromJobs>();
}
std::span<const FamilyDef* const> SoperatorJobDurationFamilies() {
  return FamilyList<kFromClock>();
}

namespace {

// Every job the per-job families serve: the controller's, and with
// JobSource=accounting those it serves plus the finished ones slurmctld
// has purged since (docs/configuration.md, "Finished jobs"); never one id
// twice.
template <class F>
void ForServedJobs(const JobSnapshot& snap, const FinishedJobsView* accounting,
                   F&& add) {
  for (const Job& j : snap.jobs)
    if (!accounting || accounting->Serves(j)) add(j);
  if (accounting)
    for (const auto& k : accounting->purged) add(k->job);
}

}  // namespace

void AddSoperatorJobFamilies(MetricSet& set, const JobSnapshot& snap,
                             int64_t now, const FinishedJobsView* accounting) {
  AddSoperatorJobStateFamilies(set, snap, accounting);
  AddSoperatorJobDurations(set, snap, now, accounting);
}

void AddSoperatorJobDurations(MetricSet& set, const JobSnapshot& snap,
                              int64_t now, const FinishedJobsView* accounting) {
  Family& duration = *AddAll(set, kFromClock)[0];
  if (!duration.enabled()) return;
  Arena& arena = set.arena();
  ForServedJobs(snap, accounting, [&](const Job& j) {
    // Soperator's IsTerminalState lists exactly the finished bases.
    const bool terminal = IsFinished(j.state);
    const bool ended = j.end_time && *j.end_time != 0;
    if (j.start_time && *j.start_time != 0 && (!terminal || ended)) {
      const int64_t end = terminal ? *j.end_time : now;
      if (end - *j.start_time > 0) {
        const std::string_view id_label[] = {arena.StoreInt(j.id)};
        duration.Add(id_label, end - *j.start_time);
      }
    }
  });
}

void AddSoperatorJobStateFamilies(MetricSet& set, const JobSnapshot& snap,
                                  const FinishedJobsView* accounting,
                                  const NodeGroupIndex* groups) {
  const auto families = AddAll(set, kFromJobs);
  Family& info = *families[kJobInfo];
  Family& cpus = *families[kJobCpus];
  Family& memory = *families[kJobMemory];
  Family& node_job = *families[kNodeJob];
  Arena& arena = set.arena();
  std::vector<std::string> hosts;

  ForServedJobs(snap, accounting, [&](const Job& j) {
    const std::string_view id = arena.StoreInt(j.id);
    const bool terminal = IsFinished(j.state);
    // Slurm defaults mail_user to the user name; only a different address
    // is worth a label value. The accounting source sets neither the mail
    // nor the uid (Soperator exporter spec, section 11).
    const std::string_view mail =
        !accounting && !j.user_name.empty() && j.mail_user != j.user_name
            ? j.mail_user
            : std::string_view();
    const std::string_view uid = !accounting && j.user_id
                                     ? arena.StoreInt(*j.user_id)
                                     : std::string_view();
    std::string_view array_task = j.array_task_string;
    if (j.array_task_id) array_task = arena.StoreInt(*j.array_task_id);
    const bool ended = j.end_time && *j.end_time != 0;

    info.Add({id, JobBaseName(j.state), j.state_reason, j.partition, j.name,
              j.user_name, mail, uid, j.std_err, j.std_out,
              j.array_job_id ? arena.StoreInt(*j.array_job_id)
                             : std::string_view(),
              array_task, TimeLabel(arena, j.submit_time),
              TimeLabel(arena, j.start_time), TimeLabel(arena, j.end_time),
              terminal && ended ? TimeLabel(arena, j.end_time)
                                : std::string_view()},
             1);

    const std::string_view id_label[] = {id};
    const Resources r = SelectResources(j, accounting != nullptr);
    if (r.cpus) cpus.Add(id_label, *r.cpus);
    if (r.memory_bytes) memory.Add(id_label, *r.memory_bytes);

    if (!node_job.enabled()) return;  // the costly one to switch off
    hosts.clear();
    if (ExpandHostList(AssignedNodeList(j.nodes), hosts)) {
      for (const std::string& h : hosts) {
        // Soperator's topology[host], "" when unknown (Soperator exporter
        // spec, metric 20); ours from Slurm's configuration (node_groups.h).
        NodeGroupLabels labels;
        if (groups)
          if (const auto it = groups->find(h); it != groups->end()) labels = it->second;
        node_job.Add({id, arena.Store(h), labels.nvlink_instance_group, labels.nodeset}, 1);
      }
    }
  });
}

}  // namespace sm
