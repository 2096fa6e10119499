// SPDX-License-Identifier: GPL-2.0-or-later
// Soperator's two topology labels from Slurm's configuration
// (docs/metrics.md, "Where nodeset_name and nvlink_instance_group come
// from"): slurm_node_nvlink_instance_group for the nodes of a block,
// slurm_node_job's labels per host, and slurm_node_info's nodeset_name
// behind NodeInfoNodesetLabel. Exact lines; the real-daemon test
// (tests/integration/test_node_groups.py) checks the adapter's side.
#include <gtest/gtest.h>

#include "families/soperator/soperator_jobs.h"
#include "families/soperator/soperator_nodes.h"
#include "test_util.h"

namespace sm {
namespace {

using testing::Render;
using testing::Samples;
using V = std::vector<std::string>;

Node Worker(std::string_view name, std::string_view nodeset, std::string_view block) {
  Node n;
  n.name = name;
  n.instance_id = name == "worker-0" ? "i-0" : "";
  n.nodeset = nodeset;
  n.nvlink_instance_group = block;
  n.state = {NodeBase::kIdle, 0};
  return n;
}

NodeSnapshot Cluster() {
  NodeSnapshot snap;
  snap.nodes.push_back(Worker("worker-0", "gb300", "nvl-a"));
  snap.nodes.push_back(Worker("worker-1", "gb300", ""));
  snap.nodes.push_back(Worker("login-0", "", ""));
  return snap;
}

TEST(TopologyLabels, NvlinkGroupOnlyForNodesInABlock) {
  MetricSet set;
  AddSoperatorNodeFamilies(set, Cluster());
  EXPECT_EQ(Samples(Render(set), "slurm_node_nvlink_instance_group"),
            V{"slurm_node_nvlink_instance_group{instance_id=\"i-0\",node_name=\"worker-0\","
              "nodeset_name=\"gb300\",nvlink_instance_group=\"nvl-a\"} 1"});
}

TEST(TopologyLabels, NoBlockNoFamily) {
  NodeSnapshot snap;
  snap.nodes.push_back(Worker("worker-0", "gb300", ""));
  MetricSet set;
  AddSoperatorNodeFamilies(set, snap);
  const std::string out = Render(set);
  EXPECT_EQ(out.find("slurm_node_nvlink_instance_group"), std::string::npos) << out;
}

// Off by default: slurm_node_info keeps Soperator's released label set.
TEST(TopologyLabels, NodeInfoNodesetOnlyWhenAsked) {
  MetricSet off, on;
  AddSoperatorNodeFamilies(off, Cluster());
  AddSoperatorNodeFamilies(on, Cluster(), {}, true);
  const V without = Samples(Render(off), "slurm_node_info");
  const V with = Samples(Render(on), "slurm_node_info");
  ASSERT_EQ(without.size(), 3u);
  ASSERT_EQ(with.size(), 3u);
  for (const std::string& line : without)
    EXPECT_EQ(line.find("nodeset_name"), std::string::npos) << line;
  const auto line_of = [](const V& lines, std::string_view node) {
    for (const std::string& l : lines)
      if (l.find("node_name=\"" + std::string(node) + "\"") != std::string::npos) return l;
    return std::string();
  };
  // Labels print sorted: nodeset_name sits between node_name and reason.
  const std::string worker = line_of(with, "worker-1");
  EXPECT_NE(worker.find("node_name=\"worker-1\",nodeset_name=\"gb300\",reason=\"\""),
            std::string::npos)
      << worker;
  EXPECT_NE(line_of(with, "login-0").find("node_name=\"login-0\",nodeset_name=\"\",reason"),
            std::string::npos);
  // Everything else as without the label.
  std::string stripped = worker;
  const std::string label = ",nodeset_name=\"gb300\"";
  stripped.erase(stripped.find(label), label.size());
  EXPECT_EQ(stripped, line_of(without, "worker-1"));
}

TEST(TopologyLabels, NodeJobLabelsEachHost) {
  JobSnapshot jobs;
  Job j;
  j.id = 42;
  j.state = JobBase::kRunning;
  j.nodes = "worker-[0-1],login-0,gone-7";
  jobs.jobs.push_back(j);
  const NodeSnapshot nodes = Cluster();
  MetricSet set;
  AddSoperatorJobStateFamilies(set, jobs, nullptr, &nodes.Groups());
  EXPECT_EQ(Samples(Render(set), "slurm_node_job"),
            (V{"slurm_node_job{job_id=\"42\",node_name=\"gone-7\",nodeset_name=\"\","
               "nvlink_instance_group=\"\"} 1",
               "slurm_node_job{job_id=\"42\",node_name=\"login-0\",nodeset_name=\"\","
               "nvlink_instance_group=\"\"} 1",
               "slurm_node_job{job_id=\"42\",node_name=\"worker-0\",nodeset_name=\"gb300\","
               "nvlink_instance_group=\"nvl-a\"} 1",
               "slurm_node_job{job_id=\"42\",node_name=\"worker-1\",nodeset_name=\"gb300\","
               "nvlink_instance_group=\"\"} 1"}));
}

// What a group labelling jobs' hosts follows: the labels, not the rest of
// each node (NodeSnapshot::GroupsContent).
TEST(TopologyLabels, GroupsContentFollowsTheLabelsAlone) {
  NodeSnapshot a = Cluster(), b = Cluster(), c = Cluster();
  b.nodes[1].free_memory_mb = 5;
  c.nodes[1].nvlink_instance_group = "nvl-b";
  EXPECT_EQ(a.GroupsContent(), b.GroupsContent());
  EXPECT_NE(a.GroupsContent(), c.GroupsContent());
}

}  // namespace
}  // namespace sm
