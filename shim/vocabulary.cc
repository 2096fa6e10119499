// SPDX-License-Identifier: GPL-2.0-or-later
// The words of Slurm's JSON as this release's numbers: node and job state
// words, state reasons and RPC names.
#include "vocabulary.h"

#include <strings.h>

#include <algorithm>
#include <cstring>

#include "input.h"

namespace shim {
namespace {

struct NameBit {
  const char* name;
  uint32_t bit;
};

// Node flag words as data_parser (v0.0.38 state_flags, v0.0.40+ state[])
// prints them, with the short aliases scontrol uses.
const NameBit kNodeFlags[] = {
    {"DRAIN", NODE_STATE_DRAIN},
    {"MAINTENANCE", NODE_STATE_MAINT},
    {"MAINT", NODE_STATE_MAINT},
    {"RESERVED", NODE_STATE_RES},
    {"RES", NODE_STATE_RES},
    {"COMPLETING", NODE_STATE_COMPLETING},
    {"FAIL", NODE_STATE_FAIL},
    {"PLANNED", NODE_STATE_PLANNED},
    {"NOT_RESPONDING", NODE_STATE_NO_RESPOND},
    {"NO_RESPOND", NODE_STATE_NO_RESPOND},
    {"CLOUD", NODE_STATE_CLOUD},
    {"POWER_DOWN", NODE_STATE_POWER_DOWN},
    {"POWER_DRAIN", NODE_STATE_POWER_DRAIN},
    {"POWERED_DOWN", NODE_STATE_POWERED_DOWN},
    {"POWERING_DOWN", NODE_STATE_POWERING_DOWN},
    {"POWERING_UP", NODE_STATE_POWERING_UP},
    {"POWER_UP", NODE_STATE_POWER_UP},
    {"REBOOT_REQUESTED", NODE_STATE_REBOOT_REQUESTED},
    {"REBOOT_ISSUED", NODE_STATE_REBOOT_ISSUED},
    {"REBOOT_CANCELED", NODE_STATE_REBOOT_CANCEL},
    {"REBOOT_CANCEL", NODE_STATE_REBOOT_CANCEL},
    {"INVALID_REG", NODE_STATE_INVALID_REG},
    {"DYNAMIC_FUTURE", NODE_STATE_DYNAMIC_FUTURE},
    {"DYNAMIC_NORM", NODE_STATE_DYNAMIC_NORM},
    {"UNDRAIN", NODE_STATE_UNDRAIN},
    {"RESUME", NODE_RESUME},
#if !SM_SLURM_AT_LEAST(24, 5)
    {"PERFCTRS", NODE_STATE_NET},
#endif
#if SM_SLURM_AT_LEAST(24, 5)
    {"BLOCKED", NODE_STATE_BLOCKED},
#endif
#if SM_SLURM_AT_LEAST(25, 5)
    {"EXTERNAL", NODE_STATE_EXTERNAL},
#endif
};

// Base words in Soperator's priority order (Soperator exporter spec, section
// 3.2): with several, the
// first present wins, as Soperator's state_base does. MIXED is not a
// stored state: slurmctld keeps ALLOCATED and clients derive MIXED from
// the allocated CPUs, which is what the plugin does too.
const NameBit kNodeBases[] = {
    {"UNKNOWN", NODE_STATE_UNKNOWN}, {"DOWN", NODE_STATE_DOWN},
    {"IDLE", NODE_STATE_IDLE},       {"ALLOCATED", NODE_STATE_ALLOCATED},
    {"ERROR", NODE_STATE_ERROR},     {"MIXED", NODE_STATE_ALLOCATED},
    {"FUTURE", NODE_STATE_FUTURE}};

const NameBit kJobBases[] = {
    {"PENDING", JOB_PENDING},     {"RUNNING", JOB_RUNNING},
    {"SUSPENDED", JOB_SUSPENDED}, {"COMPLETED", JOB_COMPLETE},
    {"CANCELLED", JOB_CANCELLED}, {"FAILED", JOB_FAILED},
    {"TIMEOUT", JOB_TIMEOUT},     {"NODE_FAIL", JOB_NODE_FAIL},
    {"PREEMPTED", JOB_PREEMPTED}, {"BOOT_FAIL", JOB_BOOT_FAIL},
    {"DEADLINE", JOB_DEADLINE},   {"OUT_OF_MEMORY", JOB_OOM}};

// Flag words, and for 22.05's single-word job_state (job_state_string():
// a flag hides the base) the base a job with that word most likely has.
struct JobFlag {
  const char* name;
  uint32_t bit;
  uint32_t likely_base;
};
const JobFlag kJobFlags[] = {
    {"COMPLETING", JOB_COMPLETING, JOB_COMPLETE},
    {"STAGE_OUT", JOB_STAGE_OUT, JOB_COMPLETE},
    {"CONFIGURING", JOB_CONFIGURING, JOB_RUNNING},
    {"RESIZING", JOB_RESIZING, JOB_RUNNING},
    {"REQUEUED", JOB_REQUEUE, JOB_PENDING},
    {"REQUEUE_FED", JOB_REQUEUE_FED, JOB_PENDING},
    {"REQUEUE_HOLD", JOB_REQUEUE_HOLD, JOB_PENDING},
    {"SPECIAL_EXIT", JOB_SPECIAL_EXIT, JOB_PENDING},
    {"STOPPED", JOB_STOPPED, JOB_RUNNING},
    {"REVOKED", JOB_REVOKED, JOB_CANCELLED},
    {"RESV_DEL_HOLD", JOB_RESV_DEL_HOLD, JOB_PENDING},
    {"SIGNALING", JOB_SIGNALING, JOB_RUNNING},
    {"LAUNCH_FAILED", JOB_LAUNCH_FAILED, JOB_FAILED},
    {"RECONFIG_FAIL", JOB_RECONFIG_FAIL, JOB_PENDING},
    {"POWER_UP_NODE", JOB_POWER_UP_NODE, JOB_RUNNING},
#if !SM_SLURM_AT_LEAST(24, 11)
    {"UPDATE_DB", JOB_UPDATE_DB, JOB_RUNNING},
#endif
};

}  // namespace

const std::unordered_map<std::string, uint32_t>& ReasonIds() {
  static const auto* table = [] {
    auto* m = new std::unordered_map<std::string, uint32_t>();
    for (uint32_t i = 0; i < 4096; ++i) {
      const char* s = sm::slurm::ReasonString(i);
      if (!s || !strcmp(s, "?") || !strcmp(s, "InvalidReason")) continue;
      m->emplace(s, i);
    }
    return m;
  }();
  return *table;
}

const std::unordered_map<std::string, uint16_t>& RpcIds() {
  static const auto* table = [] {
    auto* m = new std::unordered_map<std::string, uint16_t>();
    for (uint32_t i = 1; i <= UINT16_MAX; ++i) {
      const char* s = rpc_num2string(static_cast<uint16_t>(i));
      // Unknown opcodes come back as their number.
      if (!s || !*s || (s[0] >= '0' && s[0] <= '9')) continue;
      m->emplace(s, static_cast<uint16_t>(i));
    }
    return m;
  }();
  return *table;
}

uint32_t NodeStateOf(const NodeIn& n) {
  uint32_t state = 0;
  const NameBit* base = nullptr;
  std::vector<std::string> unknown;
  for (const std::string& w : n.state) {
    if (w == "INVALID") {
      if (n.state.size() > 1)
        Warn("node-invalid-extra", n.where + ".state: INVALID stands for a state word of NO_VAL; "
             "the other words are dropped");
      return NO_VAL;
    }
  }
  for (const NameBit& b : kNodeBases) {
    for (const std::string& w : n.state) {
      if (w == b.name && !base) base = &b;
    }
  }
  for (const std::string& w : n.state) {
    bool is_base = false;
    for (const NameBit& b : kNodeBases) is_base |= w == b.name;
    if (is_base) {
      if (base && w != base->name)
        Warn("node-several-bases", n.where + ".state: several base states; slurmctld holds one, " +
             std::string(base->name) + " is kept");
      continue;
    }
    bool found = false;
    for (const NameBit& f : kNodeFlags) {
      if (w == f.name) {
        state |= f.bit;
        found = true;
        break;
      }
    }
    if (!found) unknown.push_back(w);
  }
  for (const std::string& w : unknown)
    Warn("node-unknown-flag", n.where + ".state: \"" + w + "\" is not a node state flag of Slurm " +
         SlurmVersionString() + "; ignored");
  if (!base) {
    Warn("node-no-base", n.where + ".state: no base state (IDLE, ALLOCATED, ...); slurmctld "
         "always has one, UNKNOWN is used");
    return state | NODE_STATE_UNKNOWN;
  }
  return state | base->bit;
}

uint32_t JobStateOf(const JobIn& j) {
  uint32_t base = UINT32_MAX;
  uint32_t flags = 0;
  for (size_t i = 0; i < j.state.size(); ++i) {
    const std::string& w = j.state[i];
    bool found = false;
    for (const NameBit& b : kJobBases) {
      if (w == b.name) {
        if (base == UINT32_MAX) base = b.bit;
        else if (base != b.bit)
          Warn("job-several-bases", j.where + ".job_state: several base states; the first is kept");
        found = true;
      }
    }
    for (const JobFlag& f : kJobFlags) {
      if (w == f.name) {
        flags |= f.bit;
        found = true;
        if (i == 0 && j.state.size() == 1) base = f.likely_base;
      }
    }
    if (!found)
      Warn("job-unknown-state", j.where + ".job_state: \"" + w + "\" is not a job state of Slurm " +
           SlurmVersionString() + "; ignored");
  }
  if (base == UINT32_MAX) {
    Warn("job-no-base", j.where + ".job_state: no base state; PENDING is used");
    base = JOB_PENDING;
  } else if (j.state.size() == 1 && flags) {
    Warn("job-flag-hides-base", j.where + ".job_state: \"" + j.state[0] +
         "\" hides the base state (22.05 prints the flag only); assuming " +
         job_state_string(base));
  }
  return base | flags;
}

uint32_t ReasonOf(const JobIn& j) {
  const auto& ids = ReasonIds();
  auto it = ids.find(j.state_reason);
  if (it != ids.end()) return it->second;
  if (j.state_reason.empty()) return WAIT_NO_REASON;
  for (const auto& [name, id] : ids) {
    if (strcasecmp(name.c_str(), j.state_reason.c_str()) == 0) return id;
  }
  Warn("job-unknown-reason", j.where + ".state_reason: \"" + j.state_reason +
       "\" is not a job state reason of Slurm " + SlurmVersionString() +
       "; the plugin will show \"" + sm::slurm::ReasonString(WAIT_NO_REASON) + "\"");
  return WAIT_NO_REASON;
}


std::vector<std::pair<uint16_t, std::string>> KnownRpcs() {
  std::vector<std::pair<uint16_t, std::string>> out;
  for (const auto& [name, id] : RpcIds()) out.emplace_back(id, name);
  std::sort(out.begin(), out.end());
  return out;
}

const char* SlurmVersionString() { return SLURM_VERSION_STRING; }
uint32_t SlurmVersionNumber() { return SLURM_VERSION_NUMBER; }

}  // namespace shim
