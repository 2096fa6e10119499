// SPDX-License-Identifier: GPL-2.0-or-later
// Slurm's /metrics/partitions families: the real 26.05.3 response
// reproduced from the sample cluster, Slurm's partition rules, and our
// corrected defaults (no uint16 wraparound, bytes).
#include "families/native/native_partitions.h"

#include <gtest/gtest.h>

#include "native_sample.h"
#include "families/soperator/node_history.h"
#include "test_util.h"

namespace sm {
namespace {

using testing::Exception;
using testing::ParseExposition;
using testing::Render;
using testing::Samples;
using V = std::vector<std::string>;
using namespace node_flag;

constexpr double kMiB = 1048576;

testing::Exposition RenderParts(const NodeSnapshot& nodes,
                                const JobSnapshot* jobs, bool native_values,
                                std::string* text = nullptr) {
  MetricSet set;
  AddNativePartitionFamilies(set, nodes, jobs, {0, native_values});
  const std::string out = Render(set);
  if (text) *text = out;
  return ParseExposition(out, false);
}

// As for /metrics/nodes: the JSON, taken 12 s after the scrape, has both
// ghosts NOT_RESPONDING.
const std::vector<Exception> kPartitionExceptions = {
    {"slurm_partition_nodes_no_resp{partition=\"debug\"}", 0, 1},
    {"slurm_partition_nodes_no_resp{partition=\"batch\"}", 0, 2}};

TEST(NativePartitions, ReproducesSlurmResponse) {
  const NodeSnapshot nodes = testing::SampleNodes();
  const JobSnapshot jobs = testing::SampleJobs();
  const auto ours = RenderParts(nodes, &jobs, true);
  const auto sample = testing::Sample("partitions");
  EXPECT_EQ(sample.series.size(), 1u + 72 * 2);
  testing::ExpectSameSeries(sample, ours, kPartitionExceptions);
  testing::ExpectSameComments(sample, ours);
  // Records vs tasks: 2 running + 3 pending records, 1 + 1 + 3 tasks.
  EXPECT_EQ(ours.series.at("slurm_partition_jobs{partition=\"debug\"}"), 5);
  EXPECT_EQ(ours.series.at("slurm_partition_jobs_pending{partition=\"debug\"}"),
            5);
}

TEST(NativePartitions, EndpointIsNativeOnly) {
  auto nodes = std::make_shared<const NodeSnapshot>(testing::SampleNodes());
  auto jobs = std::make_shared<const JobSnapshot>(testing::SampleJobs());
  NodeHistory history(0);
  MetricSet set;
  AddEndpointFamilies(set, Endpoint::kPartitions, {nodes, jobs, nullptr},
                      history, {0, true});
  const auto ours = ParseExposition(Render(set), false);
  testing::ExpectSameSeries(testing::Sample("partitions"), ours,
                            kPartitionExceptions);
}

Node BigNode(std::string_view name, int64_t cpus, int64_t alloc) {
  Node n = testing::SampleNode(name, NodeBase::kAllocated, 0);
  n.cpus = cpus;
  n.effective_cpus = cpus;
  n.alloc_cpus = alloc;
  n.real_memory_mb = 1000;
  n.free_memory_mb = 500;
  return n;
}

TEST(NativePartitions, WraparoundOf70000Cpus) {
  // Two 35,000-CPU nodes, fully allocated by one 70,000-CPU job: Slurm's
  // uint16 sums print 70,000 - 65,536 = 4,464.
  NodeSnapshot nodes;
  nodes.nodes = {BigNode("n1", 35000, 35000), BigNode("n2", 35000, 35000)};
  Partition p;
  p.name = "huge";
  p.node_indices = {0, 1};
  p.total_cpus = 70000;
  p.total_nodes = 70000;  // as if it had 70,000 nodes: uint16 in Slurm
  nodes.partitions = {p};
  JobSnapshot jobs;
  Job j = testing::SampleJob(1, JobBase::kRunning, "None", "huge");
  j.cpus_alloc = 70000;
  j.memory_alloc_mb = 2048;
  j.node_indices = {0, 1};
  Job wide = testing::SampleJob(2, JobBase::kPending, "Resources", "huge");
  wide.min_nodes = 70000;
  jobs.jobs = {j, wide};

  std::string text;
  const auto ours = RenderParts(nodes, &jobs, false, &text);
  const char* kHuge = "{partition=\"huge\"}";
  auto at = [&](const testing::Exposition& e, const std::string& family) {
    return e.series.at(family + kHuge);
  };
  EXPECT_EQ(at(ours, "slurm_partition_nodes_cpus_alloc"), 70000);
  EXPECT_EQ(at(ours, "slurm_partition_nodes_cpus_efctv"), 70000);
  EXPECT_EQ(at(ours, "slurm_partition_nodes_cpus_idle"), 0);
  EXPECT_EQ(at(ours, "slurm_partition_jobs_cpus_alloc"), 70000);
  EXPECT_EQ(at(ours, "slurm_partition_jobs_min_job_nodes"), 70000);
  EXPECT_EQ(at(ours, "slurm_partition_jobs_max_job_nodes"), 70000);
  EXPECT_EQ(at(ours, "slurm_partition_nodes"), 70000);
  EXPECT_EQ(at(ours, "slurm_partition_cpus"), 70000);
  EXPECT_EQ(at(ours, "slurm_partition_jobs_memory_alloc"), 2048 * kMiB);
  // The mem_* sums state no unit: MB in both modes.
  EXPECT_EQ(at(ours, "slurm_partition_nodes_mem_tot"), 2000);
  EXPECT_EQ(at(ours, "slurm_partition_nodes_mem_free"), 1000);

  const auto native = RenderParts(nodes, &jobs, true);
  EXPECT_EQ(at(native, "slurm_partition_nodes_cpus_alloc"), 4464);
  EXPECT_EQ(at(native, "slurm_partition_nodes_cpus_efctv"), 4464);
  EXPECT_EQ(at(native, "slurm_partition_jobs_cpus_alloc"), 4464);
  EXPECT_EQ(at(native, "slurm_partition_jobs_min_job_nodes"), 4464);
  EXPECT_EQ(at(native, "slurm_partition_jobs_max_job_nodes"), 4464);
  EXPECT_EQ(at(native, "slurm_partition_nodes"), 4464);
  EXPECT_EQ(at(native, "slurm_partition_cpus"), 70000);  // uint32
  EXPECT_EQ(at(native, "slurm_partition_jobs_memory_alloc"), 2048);
  EXPECT_EQ(at(native, "slurm_partition_nodes_mem_tot"), 2000);
}

TEST(NativePartitions, JobsCountUnderTheirStatisticsPartition) {
  NodeSnapshot nodes = testing::SampleNodes();
  JobSnapshot jobs;
  // Submitted to both, currently held against batch (part_ptr).
  Job both = testing::SampleJob(1, JobBase::kPending, "Priority", "debug,batch");
  both.statistics_partition = "batch";
  // No part_ptr: the raw list matches no partition.
  Job lost = testing::SampleJob(2, JobBase::kPending, "Priority", "debug,batch");
  lost.statistics_partition = "debug,batch";
  Job single = testing::SampleJob(3, JobBase::kPending, "Priority", "debug");
  jobs.jobs = {both, lost, single};
  const auto ours = RenderParts(nodes, &jobs, false);
  EXPECT_EQ(ours.series.at("slurm_partition_jobs_pending{partition=\"batch\"}"),
            1);
  EXPECT_EQ(ours.series.at("slurm_partition_jobs_pending{partition=\"debug\"}"),
            1);
}

TEST(NativePartitions, WaitPartNodeLimit) {
  NodeSnapshot nodes = testing::SampleNodes();
  JobSnapshot jobs;
  Job waits =
      testing::SampleJob(1, JobBase::kPending, "PartitionNodeLimit", "debug");
  waits.waits_part_node_limit = true;
  waits.reason_has_part_node_limit_bit = true;
  // WAIT_RESERVATION (14) has the bit; so does FAIL_OOM (181), in a
  // finished record.
  Job resv = testing::SampleJob(2, JobBase::kPending, "Reservation", "debug");
  resv.reason_has_part_node_limit_bit = true;
  Job oom =
      testing::SampleJob(3, JobBase::kOutOfMemory, "OutOfMemory", "debug");
  oom.reason_has_part_node_limit_bit = true;
  jobs.jobs = {waits, resv, oom,
               testing::SampleJob(4, JobBase::kPending, "Resources", "debug")};
  const char* kKey =
      "slurm_partition_jobs_wait_part_node_limit{partition=\"debug\"}";
  EXPECT_EQ(RenderParts(nodes, &jobs, false).series.at(kKey), 1);
  EXPECT_EQ(RenderParts(nodes, &jobs, true).series.at(kKey), 3);
}

TEST(NativePartitions, NodeRules) {
  NodeSnapshot nodes;
  // Stored IDLE, 1 of 4 CPUs allocated, DRAIN: classed MIXED; the
  // partitions path tests draining on the rewritten copy, the nodes path
  // does not.
  Node mixed = testing::SampleNode("mixed", NodeBase::kIdle, kDrain);
  mixed.cpus = mixed.effective_cpus = 4;
  mixed.alloc_cpus = 1;
  mixed.statistics_base = NodeBase::kMixed;
  Node cloud = testing::SampleNode("cloud", NodeBase::kIdle,
                                   kCloud | kPoweringDown | kPoweredDown);
  nodes.nodes = {mixed, cloud};
  nodes.unlisted_nodes = {testing::SampleNode("later", NodeBase::kFuture, 0)};
  Partition a;
  a.name = "a";
  a.node_indices = {0, 1};
  a.unlisted_node_indices = {0};
  Partition b;  // a node in two partitions counts in both
  b.name = "b";
  b.node_indices = {1};
  nodes.partitions = {a, b};
  const auto ours = RenderParts(nodes, nullptr, false);
  auto a_ = [&](const char* family) {
    return ours.series.at(std::string(family) + "{partition=\"a\"}");
  };
  EXPECT_EQ(a_("slurm_partition_nodes_mixed"), 1);
  EXPECT_EQ(a_("slurm_partition_nodes_draining"), 1);
  EXPECT_EQ(a_("slurm_partition_nodes_drain"), 0);
  EXPECT_EQ(a_("slurm_partition_nodes_drained"), 0);
  EXPECT_EQ(a_("slurm_partition_nodes_idle"), 1);
  EXPECT_EQ(a_("slurm_partition_nodes_future"), 1);
  EXPECT_EQ(a_("slurm_partition_nodes_powering_down"), 1);
  EXPECT_EQ(a_("slurm_partition_nodes_powered_down"), 1);
  EXPECT_EQ(a_("slurm_partition_nodes_cpus_idle"), 3 + 2 + 2);
  EXPECT_EQ(ours.series.at("slurm_partition_nodes_cloud{partition=\"b\"}"), 1);
  EXPECT_EQ(ours.series.at("slurm_partitions"), 2);
  // Without a job snapshot the job families are left out, not zeroed.
  EXPECT_FALSE(ours.series.count("slurm_partition_jobs{partition=\"a\"}"));
  EXPECT_EQ(ours.series.size(), 1u + 2 * (72 - 34));
}

TEST(NativePartitions, NoPartitions) {
  const NodeSnapshot nodes;
  const JobSnapshot jobs;
  std::string text;
  const auto ours = RenderParts(nodes, &jobs, true, &text);
  EXPECT_EQ(Samples(text, "slurm_partitions"), V{"slurm_partitions 0"});
  EXPECT_EQ(ours.series.size(), 1u);
}

}  // namespace
}  // namespace sm
