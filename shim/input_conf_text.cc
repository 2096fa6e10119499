// SPDX-License-Identifier: GPL-2.0-or-later
// NodeSet= lines of slurm.conf and the blocks of topology/block, from the
// text an admin has at hand: slurm.conf and topology.conf themselves, or
// `scontrol show topology` ("BlockName=b1 BlockIndex=0 Nodes=n[1-2]
// BlockSize=2", "AggregatedBlock=..."). Keys are case-insensitive, as in
// slurm.conf; other lines are skipped.
#include <sstream>

#include "input.h"

namespace shim {
namespace {

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return s;
}

// "Key=Value" words of one line, keys lower-cased; a '#' ends the line.
std::vector<std::pair<std::string, std::string>> Words(const std::string& line) {
  std::vector<std::pair<std::string, std::string>> out;
  std::istringstream in(line.substr(0, line.find('#')));
  for (std::string w; in >> w;) {
    const size_t eq = w.find('=');
    if (eq == std::string::npos) continue;
    out.emplace_back(Lower(w.substr(0, eq)), w.substr(eq + 1));
  }
  return out;
}

}  // namespace

bool ReadNodeGroupsText(const std::string& text, const std::string& file, ClusterIn& state) {
  std::vector<NodeSetIn> nodesets;
  std::vector<BlockIn> blocks;
  std::istringstream in(text);
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    const auto words = Words(line);
    if (words.empty()) continue;
    const std::string& first = words[0].first;
    if (first != "nodeset" && first != "blockname" && first != "aggregatedblock") continue;
    if (words[0].second.empty())
      throw InputError(file + ":" + std::to_string(number) + ": " + first + "= without a name");
    std::string nodes, feature;
    for (const auto& [k, v] : words) {
      if (k == "nodes") nodes = v;
      if (k == "feature") feature = v;
    }
    if (first == "nodeset")
      nodesets.push_back({words[0].second, nodes, feature});
    else
      blocks.push_back({words[0].second, nodes, first == "aggregatedblock"});
  }
  if (nodesets.empty() && blocks.empty()) return false;
  state.nodesets.insert(state.nodesets.end(), nodesets.begin(), nodesets.end());
  state.blocks.insert(state.blocks.end(), blocks.begin(), blocks.end());
  return true;
}

}  // namespace shim
