// SPDX-License-Identifier: GPL-2.0-or-later
// The node table: node_record_t as slurmctld's node_conf.c holds them.
#include <algorithm>

#include "builders.h"
#include "vocabulary.h"

#if SM_SLURM_AT_LEAST(23, 2)
// Not in node_conf.h, but next_node() stops at it when the table has holes.
extern "C" int last_node_index;
extern "C" int active_node_record_count;
#endif

namespace shim {
namespace {

void FreeGres(void* x) {
  auto* gs = static_cast<gres_state_t*>(x);
  xfree(gs->gres_name);
  xfree(gs->gres_data);
  xfree(gs);
}

void FreeNode(node_record_t* n) {
  if (!n) return;
  xfree(n->name);
  xfree(n->comm_name);
  xfree(n->node_hostname);
  xfree(n->comment);
  xfree(n->reason);
  xfree(n->tres_fmt_str);
  xfree(n->part_pptr);
#if SM_SLURM_AT_LEAST(23, 2)
  xfree(n->resv_name);
#endif
#if SM_SLURM_AT_LEAST(23, 11)
  xfree(n->instance_id);
#endif
  if (n->gres_list) list_destroy(n->gres_list);
  xfree(n->energy);  // acct_gather_energy_destroy() is xfree()
  xfree(n->config_ptr);
  xfree(n);
}

// The node's config record: what scontrol and slurmrestd print as the
// configured CPUs and memory.
config_record_t* NewConfig(const node_record_t* rec) {
  auto* cfg = static_cast<config_record_t*>(xmalloc(sizeof(config_record_t)));
  cfg->magic = CONFIG_MAGIC;
  cfg->cpus = rec->cpus;
  cfg->real_memory = rec->real_memory;
  cfg->cores = rec->cores;
  cfg->threads = rec->threads;
  cfg->tot_sockets = rec->tot_sockets;
  cfg->boards = 1;
  cfg->mem_spec_limit = rec->mem_spec_limit;
  return cfg;
}

// The node's last energy reading. slurmctld gives every node one,
// zeroed until slurmd reports (create_node_record():
// acct_gather_energy_alloc(1), an xcalloc); the plugin takes poll_time 0 or
// current_watts NO_VAL (data_parser's unset) as no reading (docs/metrics.md,
// "Node power and energy"), so a dump without `energy` replays as none.
acct_gather_energy_t* NewEnergy(const NodeIn& n) {
  auto* e = static_cast<acct_gather_energy_t*>(xcalloc(1, sizeof(acct_gather_energy_t)));
  const Num& watts = n.energy_current_watts;
  e->current_watts = watts.kind == Num::kUnset      ? NO_VAL
                     : watts.kind == Num::kInfinite ? INFINITE
                     : Fit<uint32_t>(n.where, "energy.current_watts", watts.or_else(0));
  e->ave_watts = Fit<uint32_t>(n.where, "energy.average_watts", n.energy_average_watts);
  e->consumed_energy = Fit<uint64_t>(n.where, "energy.consumed_energy", n.energy_consumed);
  e->poll_time = static_cast<time_t>(
      Fit<uint64_t>(n.where, "energy.last_collected", n.energy_last_collected));
  return e;
}

// The node's gres/gpu entry, where the GRES plugin keeps its GPU counts.
sm::slurm::SlurmList NewGpuGres(int64_t configured, int64_t used) {
  auto list = list_create(FreeGres);
  auto* gs = static_cast<gres_state_t*>(xmalloc(sizeof(gres_state_t)));
  gs->plugin_id = gres_build_id(const_cast<char*>("gpu"));
  gs->gres_name = xstrdup("gpu");
  auto* ns = static_cast<gres_node_state_t*>(xmalloc(sizeof(gres_node_state_t)));
  ns->gres_cnt_config = ns->gres_cnt_found = ns->gres_cnt_avail =
      static_cast<uint64_t>(std::max<int64_t>(0, configured));
  ns->gres_cnt_alloc = static_cast<uint64_t>(std::max<int64_t>(0, used));
  gs->gres_data = ns;
  list_append(list, gs);
  return list;
}

// Fills the xmalloc'd, zeroed `rec` for slot `i`.
void FillNode(const NodeIn& n, uint32_t state, int i, node_record_t* rec,
              int64_t& gpus_used) {
  const TresCounts tres = CountTres(n.tres, n.where + ".tres");
  const TresCounts used = CountTres(n.tres_used, n.where + ".tres_used");
  gpus_used = used.gpus;
  rec->magic = NODE_MAGIC;
  rec->index = i;
  rec->name = xstrdup(n.name.c_str());
  rec->comm_name = Dup(n.address);
  rec->node_hostname = Dup(n.hostname.empty() ? n.name : n.hostname);
  rec->comment = Dup(n.comment);
  rec->reason = Dup(n.reason);
  rec->reason_time = n.reason.empty() ? 0 : n.reason_time;
  rec->reason_uid = n.reason.empty() ? NO_VAL : 0;
  rec->tres_fmt_str = Dup(n.tres);
#if SM_SLURM_AT_LEAST(23, 11)
  rec->instance_id = Dup(n.instance_id);
#else
  if (!n.instance_id.empty())
    Warn("node-no-instance-id", n.where + ".instance_id: Slurm " + std::string(SLURM_VERSION_STRING) +
         " nodes have no instance_id; the plugin exports \"\"");
#endif
#if SM_SLURM_AT_LEAST(23, 2)
  rec->resv_name = Dup(n.reservation);
#endif
  rec->node_state = state;
  // slurmctld always has CPUs and memory; the TRES stands in when the
  // dump lacks them.
  const int64_t cpus = n.cpus.has() ? n.cpus.value : tres.cpus;
  rec->cpus = Fit<uint16_t>(n.where, "cpus", cpus);
  rec->cpus_efctv = Fit<uint16_t>(n.where, "effective_cpus", n.effective_cpus.or_else(cpus));
  const int64_t mem = n.real_memory.has() ? n.real_memory.value : tres.mem_mb;
  rec->real_memory = Fit<uint64_t>(n.where, "real_memory", mem);
  rec->free_mem = n.free_mem.has() ? Fit<uint64_t>(n.where, "free_mem", n.free_mem.value)
                                   : NO_VAL64;
  rec->mem_spec_limit =
      Fit<uint64_t>(n.where, "specialized_memory", n.specialized_memory.or_else(0));
  rec->cores = Fit<uint16_t>(n.where, "cores", n.cores.or_else(1));
  rec->threads = Fit<uint16_t>(n.where, "threads", n.threads.or_else(1));
  rec->tot_sockets = Fit<uint16_t>(n.where, "sockets", n.sockets.or_else(1));
  rec->tot_cores = static_cast<uint16_t>(rec->cores * rec->tot_sockets);
  rec->boards = 1;
  rec->config_ptr = NewConfig(rec);
  rec->energy = NewEnergy(n);
  if (tres.gpus > 0 || used.gpus > 0) rec->gres_list = NewGpuGres(tres.gpus, used.gpus);
}

}  // namespace

NodeTable BuildNodes(const std::vector<NodeIn>& nodes,
                     const std::vector<uint32_t>& states) {
  const int count = static_cast<int>(nodes.size());
  node_record_count = count;
  node_record_table_ptr =
      static_cast<node_record_t**>(xcalloc(count > 0 ? count : 1, sizeof(node_record_t*)));
#if SM_SLURM_AT_LEAST(23, 2)
  last_node_index = count - 1;
  active_node_record_count = count;
#endif
  NodeTable table;
  table.slot.reserve(nodes.size());
  table.gpus_used.assign(nodes.size(), 0);
  for (int i = 0; i < count; ++i) {
    const NodeIn& n = nodes[i];
    // In the table before it is filled: FreeNodes() frees a half-built one.
    auto* rec = static_cast<node_record_t*>(xmalloc(sizeof(node_record_t)));
    node_record_table_ptr[i] = rec;
    FillNode(n, states[i], i, rec, table.gpus_used[i]);
    if (!table.slot.emplace(n.name, i).second)
      Warn("node-duplicate-name", n.where + ".name: \"" + n.name + "\" names two nodes; slurmctld "
           "never has that, the plugin drops the duplicate series");
  }
  return table;
}

void FreeNodes() {
  for (int i = 0; i < node_record_count; ++i) FreeNode(node_record_table_ptr[i]);
  xfree(node_record_table_ptr);
  node_record_count = 0;
#if SM_SLURM_AT_LEAST(23, 2)
  last_node_index = -1;
  active_node_record_count = 0;
#endif
}

}  // namespace shim
