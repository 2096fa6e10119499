// SPDX-License-Identifier: GPL-2.0-or-later
// Soperator controller families (Soperator exporter spec, section 6.4).
// Where a shim case (tests/shim/cases) feeds the plugin the same input,
// the expected lines are that case's (CaseFamily): written once, checked
// here on the core and there through the real plugin.
#include <gtest/gtest.h>

#include "shim_case_families.h"
#include "families/soperator/soperator_controller.h"
#include "test_util.h"

namespace sm {
namespace {

using testing::CaseFamily;
using testing::Render;
using testing::Samples;
using V = std::vector<std::string>;

TEST(SoperatorController, RpcStatistics) {
  DiagSnapshot d;
  d.server_thread_count = 0;
  d.rpc_types = {{"REQUEST_PING", 3, 61410},
                 {"REQUEST_NODE_INFO", 0, 1},
                 {"REQUEST_JOB_INFO", 5, 0},
                 {"REQUEST_BIG", 2, 6871947674}};
  d.rpc_users = {{"root", 0, 15, 5000}, {"", 4242, 1, 0}};
  MetricSet set;
  AddSoperatorControllerFamilies(set, d);
  const std::string out = Render(set);
  EXPECT_EQ(Samples(out, "slurm_controller_server_thread_count"),
            CaseFamily("controller_rpc", "slurm_controller_server_thread_count"));
  EXPECT_EQ(Samples(out, "slurm_controller_rpc_calls_total"),
            (V{"slurm_controller_rpc_calls_total{message_type=\"REQUEST_BIG\"} 2",
               "slurm_controller_rpc_calls_total{message_type=\"REQUEST_JOB_INFO\"} 5",
               "slurm_controller_rpc_calls_total{message_type=\"REQUEST_PING\"} 3"}));
  EXPECT_EQ(
      Samples(out, "slurm_controller_rpc_duration_seconds_total"),
      (V{"slurm_controller_rpc_duration_seconds_total{message_type=\"REQUEST_BIG\"} 6871.947674",
         "slurm_controller_rpc_duration_seconds_total{message_type=\"REQUEST_NODE_INFO\"} 1e-06",
         "slurm_controller_rpc_duration_seconds_total{message_type=\"REQUEST_PING\"} 0.06141"}));
  EXPECT_EQ(Samples(out, "slurm_controller_rpc_user_calls_total"),
            CaseFamily("controller_rpc", "slurm_controller_rpc_user_calls_total"));
  EXPECT_EQ(Samples(out, "slurm_controller_rpc_user_duration_seconds_total"),
            CaseFamily("controller_rpc", "slurm_controller_rpc_user_duration_seconds_total"));
  EXPECT_NE(out.find("# TYPE slurm_controller_rpc_calls_total counter\n"),
            std::string::npos);
}

TEST(SoperatorController, NoThreadCountNoFamily) {
  DiagSnapshot d;
  MetricSet set;
  AddSoperatorControllerFamilies(set, d);
  EXPECT_EQ(Render(set), "");
}

}  // namespace
}  // namespace sm
