// SPDX-License-Identifier: GPL-2.0-or-later
#include "families/accounting/node_gres.h"

#include <cctype>
#include <optional>
#include <utility>

#include "families/family_rows.h"

namespace sm {
namespace {

// SckyzO's names, labels and HELP texts verbatim.
enum Def { kTotal, kUsed };
const FamilyDef kDefs[] = {
    {"slurm_node_gres_total",
     "Generic resources configured on the node, by resource type. gres_type "
     "is \"gpu\" for an untyped resource and \"gpu:<model>\" when Slurm "
     "reports a model.",
     MetricType::kGauge,
     {"node", "status", "partition", "gres_type"}},
    {"slurm_node_gres_used",
     "Generic resources currently allocated on the node, by resource type. "
     "Same gres_type values as slurm_node_gres_total.",
     MetricType::kGauge,
     {"node", "status", "partition", "gres_type"}},
};
static_assert(std::size(kDefs) == kUsed + 1);

void AddCounts(Family& f, const Node& n, std::string_view partition,
               const std::vector<GresCount>& counts) {
  for (const GresCount& g : counts)
    f.Add({n.name, n.state_long, partition, g.type},
          static_cast<double>(g.count));
}

bool IsWord(std::string_view s) {  // Go regexp \w+
  if (s.empty()) return false;
  for (unsigned char c : s)
    if (!(std::isalnum(c) || c == '_')) return false;
  return true;
}

// One token; nullopt when it does not match SckyzO's
// ^(\w+):(?:(\(null\)|[^:(]*):)?(\d+)(?:\([^)]*\))?$
std::optional<std::pair<std::string_view, std::string_view>> SplitToken(
    std::string_view t, uint64_t& count) {
  // Optional "(...)" suffix without ')' inside, at the very end.
  if (!t.empty() && t.back() == ')') {
    const size_t open = t.rfind('(');
    if (open == std::string_view::npos ||
        t.substr(open + 1, t.size() - open - 2).find(')') != std::string_view::npos)
      return std::nullopt;
    t = t.substr(0, open);
  }
  const size_t last = t.rfind(':');
  if (last == std::string_view::npos) return std::nullopt;
  const std::string_view digits = t.substr(last + 1);
  if (digits.empty() || digits.size() > 19) return std::nullopt;
  count = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    count = count * 10 + static_cast<uint64_t>(c - '0');
  }
  const std::string_view head = t.substr(0, last);
  const size_t first = head.find(':');
  const std::string_view name = head.substr(0, first);
  if (!IsWord(name)) return std::nullopt;
  std::string_view model;
  if (first != std::string_view::npos) {
    model = head.substr(first + 1);
    if (model != "(null)" && model.find_first_of(":(") != std::string_view::npos)
      return std::nullopt;
  }
  return std::make_pair(name, model);
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
    s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
    s.remove_suffix(1);
  return s;
}

}  // namespace

std::vector<GresCount> ParseGresCounts(std::string_view spec) {
  std::vector<GresCount> out;
  if (spec.empty() || spec == "(null)" || spec == "N/A") return out;
  auto add = [&](std::string_view token) {
    uint64_t count = 0;
    const auto parts = SplitToken(Trim(token), count);
    if (!parts) return;
    const auto& [name, model] = *parts;
    // "name" or "name:model": a view of the token's own prefix.
    const std::string_view key =
        model.empty() || model == "(null)"
            ? name
            : std::string_view(name.data(), name.size() + 1 + model.size());
    for (GresCount& g : out) {
      if (g.type == key) {
        g.count += count;
        return;
      }
    }
    out.push_back({key, count});
  };
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < spec.size(); ++i) {
    if (spec[i] == '(') {
      ++depth;
    } else if (spec[i] == ')') {
      if (depth > 0) --depth;
    } else if (spec[i] == ',' && depth == 0) {
      add(spec.substr(start, i - start));
      start = i + 1;
    }
  }
  add(spec.substr(start));
  return out;
}

std::span<const FamilyDef* const> NodeGresFamilies() {
  return FamilyList<kDefs>();
}

void AddNodeGresFamilies(MetricSet& set, const NodeSnapshot& snap) {
  const auto families = AddAll(set, kDefs);
  Family& total = *families[kTotal];
  Family& used = *families[kUsed];
  // sinfo -N prints a node once per partition it is in, and SckyzO emits
  // the node's GRES on each of those lines.
  for (const Node& n : snap.nodes) {
    for (std::string_view p : n.partitions) {
      AddCounts(total, n, p, n.gres_configured);
      AddCounts(used, n, p, n.gres_used);
    }
  }
}

}  // namespace sm
