#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Soperator's topology labels read from Slurm's own configuration on a real
cluster (docs/metrics.md, "Where nodeset_name and nvlink_instance_group
come from"): two NodeSet= lines in slurm.conf, one node in both (the
first line wins), and from 23.11 on TopologyPlugin=topology/block with two
base blocks in topology.conf. The oracles are slurmctld's own: a partition
whose Nodes= is a NodeSet name, as `scontrol show partition` prints it
expanded, and `scontrol show topology`. Checked: slurm_node_info's
nodeset_name (NodeInfoNodesetLabel=yes), slurm_node_nvlink_instance_group
(absent without topology/block) and slurm_node_job's two labels for a
running job.

usage: test_node_groups.py VERSION PLUGIN_DIR
"""

import os
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Cluster, one, parse_exposition, series, until_agree, wait_for  # noqa: E402

VERSION = PLUGIN_DIR = None
NODESETS = [("workers", "vm,ghost1"), ("spares", "ghost[1-2]")]
BLOCKS = [("nvl-a", "vm"), ("nvl-b", "ghost[1-2]")]


def has_block_topology(version):
    """topology/block exists from 23.11 (docs/metrics.md)."""
    major, minor = (int(x) for x in version.split(".")[:2])
    return (major, minor) >= (23, 11)


class NodeGroupsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="sm-groups-")
        cls.block = has_block_topology(VERSION)
        extra = [f"NodeSet={name} Nodes={nodes}" for name, nodes in NODESETS]
        # slurmctld's expansion of each NodeSet, the oracle below.
        extra += [f"PartitionName=ns_{name} Nodes={name} State=UP" for name, _ in NODESETS]
        topology = None
        if cls.block:
            extra.append("TopologyPlugin=topology/block")
            topology = os.path.join(cls.tmp, "topology.conf")
            with open(topology, "w") as f:
                for name, nodes in BLOCKS:
                    f.write(f"BlockName={name} Nodes={nodes}\n")
        cls.c = Cluster(VERSION, PLUGIN_DIR, conf_extra=extra, topology_conf=topology,
                        metrics_conf_extra=["NodeInfoNodesetLabel=yes"])

    @classmethod
    def tearDownClass(cls):
        cls.c.cleanup()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def hostnames(self, hostlist):
        return self.c.run("scontrol", "show", "hostnames", hostlist).split()

    def expected_nodesets(self):
        """{node: nodeset} from slurmctld's partitions, first line first."""
        out = {}
        for name, _ in NODESETS:
            part = self.c.scontrol("show", "partition", f"ns_{name}", "-o")
            nodes = dict(f.split("=", 1) for f in part.split() if "=" in f)["Nodes"]
            for n in self.hostnames(nodes):
                out.setdefault(n, name)
        return out

    def expected_blocks(self):
        """{node: base block} from `scontrol show topology`."""
        out = {}
        if not self.block:
            return out
        for line in self.c.scontrol("show", "topology").splitlines():
            fields = dict(f.split("=", 1) for f in line.split() if "=" in f)
            if "BlockName" not in fields:
                continue  # AggregatedBlock=: a block of blocks
            for n in self.hostnames(fields["Nodes"]):
                out[n] = fields["BlockName"]
        return out

    def test_node_info_and_nvlink_groups(self):
        nodesets = self.expected_nodesets()
        self.assertEqual(nodesets, {"vm": "workers", "ghost1": "workers", "ghost2": "spares"})
        blocks = self.expected_blocks()
        if self.block:
            self.assertEqual(blocks, {"vm": "nvl-a", "ghost1": "nvl-b", "ghost2": "nvl-b"})
        instance = {n: f.get("InstanceId", "") for n, f in self.c.nodes().items()}

        def compare():
            expo = parse_exposition(self.c.scrape()[2].decode())
            diffs = []
            for node, nodeset in nodesets.items():
                labels, _ = one(expo, "slurm_node_info", node_name=node)
                if labels.get("nodeset_name") != nodeset:
                    diffs.append(f"slurm_node_info {node}: {labels.get('nodeset_name')!r}")
            got = {l["node_name"]: (l["nvlink_instance_group"], l["nodeset_name"],
                                    l["instance_id"])
                   for l, v in series(expo, "slurm_node_nvlink_instance_group") if v == 1}
            want = {n: (b, nodesets.get(n, ""), instance.get(n, "")) for n, b in blocks.items()}
            if got != want:
                diffs.append(f"slurm_node_nvlink_instance_group: ours {got}, slurmctld {want}")
            return None, diffs

        until_agree(self, "node info and NVLink groups", compare)

    def test_node_job_labels(self):
        job = self.c.sbatch("-w", "vm", "--wrap", "sleep 300")
        try:
            wait_for(f"job {job} running",
                     lambda: self.c.run("squeue", "-h", "-j", str(job), "-o", "%T").strip()
                     == "RUNNING")
            want = {"nvlink_instance_group": "nvl-a" if self.block else "",
                    "nodeset_name": "workers"}

            def compare():
                expo = parse_exposition(self.c.scrape()[2].decode())
                found = series(expo, "slurm_node_job", job_id=str(job), node_name="vm")
                if len(found) != 1:
                    return None, [f"slurm_node_job for job {job} on vm: {found}"]
                labels = found[0][0]
                got = {k: labels.get(k) for k in want}
                return None, [] if got == want else [f"slurm_node_job labels {got}, want {want}"]

            until_agree(self, "slurm_node_job labels", compare)
        finally:
            self.c.run("scancel", str(job), check=False)


if __name__ == "__main__":
    VERSION, PLUGIN_DIR = sys.argv[1], sys.argv[2]
    unittest.main(argv=sys.argv[:1], verbosity=2)
