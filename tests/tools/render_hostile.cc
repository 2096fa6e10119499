// SPDX-License-Identifier: GPL-2.0-or-later
// Renders Soperator's families for a snapshot full of hostile strings, so
// real parsers (promtool, prometheus_client's OpenMetrics parser) can judge
// the output. Usage: render_hostile text|openmetrics
#include <cstdio>
#include <string>

#include "serving/endpoints.h"

int main(int argc, char** argv) {
  using namespace sm;
  const bool om = argc > 1 && std::string(argv[1]) == "openmetrics";
  static const std::string kHuge(1 << 20, 'x');  // 1 MB reason
  static const std::string kNasty =
      "q\"uote b\\ack\\slash new\nline tab\t cr\r bad\xFF\xFE utf8 "
      "\xC3\xA9 \xE2\x82 {}=,";

  auto nodes = std::make_shared<NodeSnapshot>();
  for (int i = 0; i < 3; ++i) {
    Node n;
    n.name = nodes->arena.Store(kNasty + std::to_string(i));
    n.reason = i == 0 ? std::string_view(kHuge) : std::string_view(kNasty);
    n.comment = kNasty;
    n.address = kNasty;
    n.reservation = kNasty;
    n.instance_id = "\xFF";
    n.state = {i == 1 ? NodeBase::kDown : NodeBase::kIdle, node_flag::kDrain};
    n.partitions = {kNasty, ""};
    n.tres = "cpu=4,mem=1G,gres/gpu=1";
    n.cpus = 4;
    nodes->nodes.push_back(n);
  }
  nodes->nodes.push_back(nodes->nodes.back());  // duplicate node name

  auto jobs = std::make_shared<JobSnapshot>();
  Job j;
  j.id = 1;
  j.name = kNasty;
  j.user_name = kNasty;
  j.mail_user = "\xC0\xAF";
  j.std_out = kHuge;
  j.std_err = kNasty;
  j.partition = kNasty;
  j.state_reason = kNasty;
  j.nodes = "n[1-3],n1";  // duplicate edge
  j.start_time = 1;
  j.state = JobBase::kRunning;
  jobs->jobs = {j, j};  // duplicate job id

  auto diag = std::make_shared<DiagSnapshot>();
  diag->server_thread_count = 3;
  diag->rpc_types = {{kNasty, 1, 1}, {kNasty, 1, 1}};
  diag->rpc_users = {{kNasty, 0, 1, 1}};

  NodeHistory history(0);
  history.Observe(*nodes, 10);
  nodes->nodes[0].state.base = NodeBase::kIdle;
  nodes->nodes[0].state.flags = 0;
  history.Observe(*nodes, 20);

  MetricSet set;
  AddEndpointFamilies(set, Endpoint::kSoperator, {nodes, jobs, diag}, history,
                      {.now = 100});
  set.Seal();
  std::string out;
  set.Write(om ? Format::kOpenMetrics : Format::kText, out);
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fprintf(stderr, "series=%llu duplicates_dropped=%llu utf8_repaired=%llu\n",
               static_cast<unsigned long long>(set.stats().series),
               static_cast<unsigned long long>(set.stats().duplicates_dropped),
               static_cast<unsigned long long>(set.stats().utf8_repaired));
  return 0;
}
