// SPDX-License-Identifier: GPL-2.0-or-later
// Prints each node's energy record as slurmctld sends it to scontrol
// (slurm_load_node(), the call `scontrol show node` makes): NAME
// current_watts ave_watts consumed_energy poll_time, or NAME - for a node
// without one. scontrol prints only the first two (CurrentWatts, AveWatts)
// and 22.05's --json none; tests/integration/test_node_power.py checks the
// other two against this.
#include <inttypes.h>
#include <stdio.h>
#include <slurm/slurm.h>

int main(void) {
  node_info_msg_t *nodes = NULL;
  slurm_init(NULL);
  if (slurm_load_node(0, &nodes, SHOW_ALL) != SLURM_SUCCESS) {
    slurm_perror("slurm_load_node");
    return 1;
  }
  for (uint32_t i = 0; i < nodes->record_count; ++i) {
    const node_info_t *n = &nodes->node_array[i];
    if (!n->name) continue;
    if (!n->energy) {
      printf("%s -\n", n->name);
      continue;
    }
    printf("%s %" PRIu32 " %" PRIu32 " %" PRIu64 " %lld\n", n->name,
           n->energy->current_watts, n->energy->ave_watts,
           n->energy->consumed_energy, (long long)n->energy->poll_time);
  }
  slurm_free_node_info_msg(nodes);
  slurm_fini();
  return 0;
}
