// SPDX-License-Identifier: GPL-2.0-or-later
#include "config/nearest_name.h"

#include <gtest/gtest.h>

#include <string>

namespace sm {
namespace {

TEST(NearestName, EditDistance) {
  EXPECT_EQ(EditDistance("", ""), 0u);
  EXPECT_EQ(EditDistance("abc", ""), 3u);
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3u);
  EXPECT_EQ(EditDistance("Slurm", "slurm"), 0u);  // case ignored
  EXPECT_EQ(EditDistance("ab", "ba"), 2u);        // no transpositions
}

TEST(NearestName, CloseEnoughOnly) {
  const std::string_view known[] = {"slurm_job_info", "slurm_node_job",
                                    "slurm_job_cpus"};
  EXPECT_EQ(NearestName("slurm_job_infos", known), "slurm_job_info");
  EXPECT_EQ(NearestName("slurm_job_cpu", known), "slurm_job_cpus");
  // Two edits in a 6-letter name is more than a third: no suggestion.
  EXPECT_EQ(NearestName("xyzabc", known), std::nullopt);
  EXPECT_EQ(NearestName("", known), std::nullopt);
  EXPECT_EQ(NearestName("slurm_job_info", {}), std::nullopt);
  EXPECT_EQ(NearestName(std::string(1 << 20, 'a'), known), std::nullopt);
}

}  // namespace
}  // namespace sm
