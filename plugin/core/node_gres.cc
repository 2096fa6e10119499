// SPDX-License-Identifier: GPL-2.0-or-later
#include "node_gres.h"

namespace sm {
namespace {

// SckyzO's names, labels and HELP texts verbatim.
const FamilyDef kTotal{
    "slurm_node_gres_total",
    "Generic resources configured on the node, by resource type. gres_type "
    "is \"gpu\" for an untyped resource and \"gpu:<model>\" when Slurm "
    "reports a model.",
    MetricType::kGauge,
    {"node", "status", "partition", "gres_type"}};
const FamilyDef kUsed{
    "slurm_node_gres_used",
    "Generic resources currently allocated on the node, by resource type. "
    "Same gres_type values as slurm_node_gres_total.",
    MetricType::kGauge,
    {"node", "status", "partition", "gres_type"}};

void AddCounts(Family& f, const NodeGres& n, std::string_view partition,
               const std::vector<GresCount>& counts) {
  for (const GresCount& g : counts)
    f.Add({n.node, n.status, partition, g.type}, static_cast<double>(g.count));
}

}  // namespace

void AddNodeGresFamilies(MetricSet& set, const NodeGresSnapshot& snap) {
  Family& total = set.Add(kTotal);
  Family& used = set.Add(kUsed);
  // sinfo -N prints a node once per partition it is in, and SckyzO emits
  // the node's GRES on each of those lines.
  for (const NodeGres& n : snap.nodes) {
    for (std::string_view p : n.partitions) {
      AddCounts(total, n, p, n.configured);
      AddCounts(used, n, p, n.used);
    }
  }
}

}  // namespace sm
