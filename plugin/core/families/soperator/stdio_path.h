// SPDX-License-Identifier: GPL-2.0-or-later
// Job stdout/stderr paths as `scontrol show job` prints them. Slurm expands
// the patterns on the client (src/api/job_info.c), so the plugin has to
// redo it on the controller's raw values, per release.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace sm {

enum class StdioDialect {
  kSlurm2205,  // plain %A %a %j %u %x substitution
  kSlurm2302,  // 23.02-25.05: %% escape, widths, %b
};

struct StdioJob {
  uint32_t job_id = 0;
  uint32_t array_job_id = 0;
  uint32_t array_task_id = 0xfffffffe;  // Slurm's NO_VAL: not an array task
  std::string_view name;
  std::string_view work_dir;
  std::string_view user;  // uid_to_string(): "nobody" when unresolvable
  bool batch = false;
  std::string_view std_out;  // raw patterns as stored; "" when unset
  std::string_view std_err;
};

std::string JobStdout(StdioDialect d, const StdioJob& job);
std::string JobStderr(StdioDialect d, const StdioJob& job);

}  // namespace sm
