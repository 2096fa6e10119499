// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <zlib.h>

#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "exposition/exposition.h"
#include "families/soperator/self_monitoring.h"
#include "model/snapshot.h"

namespace sm::testing {

inline std::string Render(MetricSet& set, Format f = Format::kText) {
  set.Seal();
  std::string out;
  set.Write(f, out);
  return out;
}

// The sample lines of one family (histogram lines included), in order.
// The self-monitoring families as the monitoring path prints them.
inline std::string RenderMonitoring(const SelfMonitoring& m) {
  MetricSet set;
  m.AddFamilies(set);
  return Render(set);
}

inline std::vector<std::string> Samples(std::string_view text,
                                        std::string_view family) {
  std::vector<std::string> out;
  std::istringstream in{std::string(text)};
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(family, 0) != 0) continue;
    const std::string_view rest = std::string_view(line).substr(family.size());
    for (std::string_view suffix : {"", "_bucket", "_sum", "_count"}) {
      if (!rest.starts_with(suffix)) continue;
      const char next = rest.size() > suffix.size() ? rest[suffix.size()] : 0;
      if (next == '{' || next == ' ') {
        out.push_back(line);
        break;
      }
    }
  }
  return out;
}

// A gzip member, inflated whole ("<bad gzip>" when it is not one).
inline std::string Gunzip(std::string_view in) {
  z_stream zs{};
  inflateInit2(&zs, 16 + MAX_WBITS);
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  std::string out;
  char buf[16384];
  int rc;
  do {
    zs.next_out = reinterpret_cast<Bytef*>(buf);
    zs.avail_out = sizeof(buf);
    rc = inflate(&zs, Z_NO_FLUSH);
    out.append(buf, sizeof(buf) - zs.avail_out);
  } while (rc == Z_OK);
  inflateEnd(&zs);
  return rc == Z_STREAM_END ? out : "<bad gzip>";
}

// One idle node `name` with 4 CPUs; one running job 7: the cluster of the
// fake sources in the collector and route tests.
inline std::shared_ptr<NodeSnapshot> OneIdleNode(std::string_view name = "n1") {
  auto s = std::make_shared<NodeSnapshot>();
  Node n;
  n.name = s->arena.Store(name);
  n.state = {NodeBase::kIdle, 0};
  n.cpus = 4;
  s->nodes.push_back(n);
  return s;
}
inline std::shared_ptr<JobSnapshot> OneRunningJob() {
  auto s = std::make_shared<JobSnapshot>();
  Job j;
  j.id = 7;
  j.state = JobBase::kRunning;
  s->jobs.push_back(j);
  return s;
}

}  // namespace sm::testing
