// SPDX-License-Identifier: GPL-2.0-or-later
// Expected values follow src/api/job_info.c of each release.
#include <gtest/gtest.h>

#include "stdio_path.h"

namespace sm {
namespace {

StdioJob Batch() {
  StdioJob j;
  j.job_id = 349;
  j.name = "train";
  j.work_dir = "/home/alice";
  j.user = "alice";
  j.batch = true;
  return j;
}

TEST(StdioPath, DefaultsForBatchJobs) {
  StdioJob j = Batch();
  for (auto d : {StdioDialect::kSlurm2205, StdioDialect::kSlurm2302}) {
    EXPECT_EQ(JobStdout(d, j), "/home/alice/slurm-349.out");
    EXPECT_EQ(JobStderr(d, j), "/home/alice/slurm-349.out");
  }
  j.array_job_id = 340;
  j.array_task_id = 9;
  EXPECT_EQ(JobStdout(StdioDialect::kSlurm2205, j),
            "/home/alice/slurm-340_9.out");
  j.batch = false;  // interactive: nothing
  EXPECT_EQ(JobStdout(StdioDialect::kSlurm2205, j), "");
  EXPECT_EQ(JobStderr(StdioDialect::kSlurm2205, j), "");
}

TEST(StdioPath, StderrFallsBackToStdoutPattern) {
  StdioJob j = Batch();
  j.std_out = "out-%j.log";
  EXPECT_EQ(JobStderr(StdioDialect::kSlurm2205, j), "/home/alice/out-349.log");
  j.std_err = "/tmp/err-%u-%x";
  EXPECT_EQ(JobStderr(StdioDialect::kSlurm2205, j), "/tmp/err-alice-train");
}

TEST(StdioPath, Slurm2205Substitution) {
  StdioJob j = Batch();
  j.array_job_id = 340;
  j.array_task_id = 9;
  j.std_out = "/o/%A_%a_%j_%%j_%5j_%u_%x";
  // 22.05 knows no %% or widths: "%%j" leaves a '%' before the id.
  EXPECT_EQ(JobStdout(StdioDialect::kSlurm2205, j),
            "/o/340_9_349_%349_%5j_alice_train");
  j.array_task_id = 0xfffffffe;  // not an array task: %A is the job id
  j.std_out = "/o/%A";
  EXPECT_EQ(JobStdout(StdioDialect::kSlurm2205, j), "/o/349");
}

TEST(StdioPath, Slurm2302Parser) {
  StdioJob j = Batch();
  j.array_job_id = 340;
  j.array_task_id = 19;
  j.std_out = "/o/%A_%a_%b_%%j_%5j_%12j_%u_%x_%q_%";
  EXPECT_EQ(JobStdout(StdioDialect::kSlurm2302, j),
            "/o/340_19_9_%j_00349_0000000349_alice_train_%q_%");
  j.std_out = "rel/%j";
  EXPECT_EQ(JobStdout(StdioDialect::kSlurm2302, j), "/home/alice/rel/349");
}

TEST(StdioPath, LongPathsAreCutLikeScontrol) {
  StdioJob j = Batch();
  // StdioJob holds views: the pattern must outlive the call.
  const std::string long_path = "/" + std::string(5000, 'n');
  j.std_out = long_path;
  EXPECT_EQ(JobStdout(StdioDialect::kSlurm2205, j).size(), 4095u);
}

}  // namespace
}  // namespace sm
