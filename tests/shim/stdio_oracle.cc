// SPDX-License-Identifier: GPL-2.0-or-later
// The oracle of tests/shim/stdio_bound.py: Slurm's own
// expand_stdio_fields() (libslurmfull, 25.11 and later), called on the
// whole pattern with no bound, its result cut where scontrol cuts it
// (snprintf into PATH_MAX: 4,095 bytes). The plugin hands the same function
// only the part of the pattern that can reach those bytes
// (StdioPatternNeeded() in plugin/slurm/job_stdio.cc, docs/compat.md);
// the test holds its result to this one.
//
// stdin: one JSON object per line {"pattern", "name", "user", "work_dir",
// "job_id", "array_job_id", "array_task_id"}; stdout: one line per object,
// the result's bytes in hex.
#include <climits>
#include <cstdio>
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "slurm_api.h"  // expand_stdio_fields() (src/common/print_fields.h)

namespace {

std::string Bytes(const nlohmann::json& j, const char* key) {
  return j.at(key).get<std::string>();
}

}  // namespace

int main() {
  std::string line;
  while (std::getline(std::cin, line)) {
    const nlohmann::json j = nlohmann::json::parse(line);
    std::string pattern = Bytes(j, "pattern"), name = Bytes(j, "name"),
                user = Bytes(j, "user"), work_dir = Bytes(j, "work_dir");
    job_std_pattern_t p = {};
    p.array_job_id = j.at("array_job_id").get<uint32_t>();
    p.array_task_id = j.at("array_task_id").get<uint32_t>();
    p.jobname = name.data();
    p.step_id = SLURM_STEP_ID_INITIALIZER;
    p.step_id.job_id = j.at("job_id").get<uint32_t>();
    p.step_id.step_id = SLURM_BATCH_SCRIPT;
    p.user = user.data();
    p.work_dir = work_dir.empty() ? nullptr : work_dir.data();
    // The same second terminator the plugin adds (docs/compat.md: a
    // pattern ending in "%<digits>" makes Slurm step past the first).
    pattern.push_back('\0');
    char* out = expand_stdio_fields(pattern.data(), &p);
    std::string result = out ? out : "";
    xfree(out);
    if (result.size() > PATH_MAX - 1) result.resize(PATH_MAX - 1);
    for (unsigned char c : result) std::printf("%02x", c);
    std::printf("\n");
  }
  return 0;
}
