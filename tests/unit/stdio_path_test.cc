// SPDX-License-Identifier: GPL-2.0-or-later
// Expected values follow src/api/job_info.c of each release.
#include <gtest/gtest.h>

#include "families/soperator/stdio_path.h"

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

// 22.05's client without any bound: xstrsubstituteall per specifier, then
// the MAXPATHLEN cut (the reference the bounded expansion must equal).
std::string Unbounded2205(const StdioJob& j, std::string pattern) {
  auto replace_all = [&](std::string_view what, const std::string& with) {
    for (size_t pos = 0; (pos = pattern.find(what, pos)) != std::string::npos;
         pos += with.size())
      pattern.replace(pos, what.size(), with);
  };
  replace_all("%A", std::to_string(j.job_id));
  replace_all("%a", std::to_string(j.array_task_id));
  replace_all("%j", std::to_string(j.job_id));
  replace_all("%u", std::string(j.user));
  replace_all("%x", std::string(j.name));
  std::string full = pattern.front() == '/' ? pattern
                                            : std::string(j.work_dir) + "/" + pattern;
  if (full.size() > 4095) full.resize(4095);
  return full;
}

std::string Repeat(std::string_view s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out.append(s);
  return out;
}

// A 1,024-byte job name and -o of %x x 2,047 made 2 MB per path and per
// collection (0.72 s for 1,000 jobs instead of 0.02 s): the expansion now
// stops where scontrol's 4,095-byte cut would, with the same result.
TEST(StdioPath, ExpansionIsBoundedWithTheSameResult) {
  const std::string name(1024, 'n');
  StdioJob j = Batch();
  j.name = name;
  const std::string attack = Repeat("%x", 2047);
  for (auto d : {StdioDialect::kSlurm2205, StdioDialect::kSlurm2302}) {
    j.std_out = attack;
    const std::string out = JobStdout(d, j);
    EXPECT_EQ(out, ("/home/alice/" + Repeat(name, 4)).substr(0, 4095));
  }
  // Where later passes shrink the text (an empty name), what lies far
  // right of the cut still moves into view: 22.05's bound keeps it.
  StdioJob e = Batch();
  e.name = "";
  const std::vector<std::string> patterns = {
      Repeat("%j", 3000) + Repeat("%x", 3000) + "tail",
      Repeat("%x", 5000) + "%j" + Repeat("%x", 100) + "end",
      Repeat("%A%x", 2000) + "/x",
      "/" + Repeat("%u", 3000) + Repeat("%x", 6000) + "z",
      Repeat("%%x", 1500) + "%u"};
  for (const std::string& pattern : patterns) {
    e.std_out = pattern;
    j.std_out = pattern;
    EXPECT_EQ(JobStdout(StdioDialect::kSlurm2205, e), Unbounded2205(e, pattern));
    EXPECT_EQ(JobStdout(StdioDialect::kSlurm2205, j), Unbounded2205(j, pattern));
  }
}

}  // namespace
}  // namespace sm
