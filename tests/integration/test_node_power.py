#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Node power and energy on a real cluster whose slurmd reads readings the
test writes (docs/metrics.md "Node power and energy"):
AcctGatherEnergyType=acct_gather_energy/pm_counters, whose two files
(/sys/cray/pm_counters/power and energy) a preloaded fopen() redirect
(pm_counters_redirect.c, test-cluster.sh SM_SLURMD_PRELOAD) points at the
test's own directory for slurmd alone. Each value against what slurmctld
gives scontrol: CurrentWatts and AveWatts as `scontrol show node` prints
them, the consumed energy and the reading's time as slurm_load_node()
returns them (node_energy_oracle.c: scontrol prints neither, 22.05's
--json has no energy) and, from 23.11 on, as `scontrol show node --json`
prints them, and the consumed energy against the joules the test
wrote since slurmd started. The readings change twice. Debian's 22.05.8
ships the plugin; where a release built by scripts/slurm-build.sh lacks it,
the test compiles that one plugin from the release's configured tree
(scripts/slurm-source.sh) into its own directory, added to PluginDir.

usage: test_node_power.py VERSION PLUGIN_DIR
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import (Cluster, json_number, parse_exposition, series,  # noqa: E402
                     until_agree, wait_for)

HERE = os.path.dirname(os.path.abspath(__file__))
VERSION = PLUGIN_DIR = None
NODE = "vm"
FAMILIES = ("slurm_node_power_watts", "slurm_node_power_average_watts",
            "slurm_node_energy_joules_total",
            "slurm_node_energy_reading_timestamp_seconds")


def prefix_of(version):
    """The Slurm install test-cluster.sh runs (22.05.8: Debian's, /usr)."""
    if version == "22.05.8":
        return "/usr"
    out = subprocess.run([os.path.join(HERE, "..", "..", "scripts", "slurm-build.sh"), version],
                         check=True, stdout=subprocess.PIPE).stdout.decode()
    return out.strip().splitlines()[-1]


def plugin_dir_of(version, prefix):
    """Where test-cluster.sh's slurmd finds its release's plugins."""
    if version == "22.05.8":
        return f"/usr/lib/{os.uname().machine}-linux-gnu/slurm-wlm"
    return os.path.join(prefix, "lib", "slurm")


def build_pm_counters(version, out_dir):
    """acct_gather_energy/pm_counters of `version`, compiled alone from its
    configured tree (read only): its undefined symbols are slurmd's."""
    tree = subprocess.run([os.path.join(HERE, "..", "..", "scripts", "slurm-source.sh"), version],
                          check=True, stdout=subprocess.PIPE).stdout.decode().strip().splitlines()[-1]
    src = os.path.join(tree, "src", "plugins", "acct_gather_energy", "pm_counters",
                       "acct_gather_energy_pm_counters.c")
    subprocess.run(["cc", "-shared", "-fPIC", "-O1", "-DHAVE_CONFIG_H", f"-I{tree}",
                    f"-I{tree}/slurm", "-o",
                    os.path.join(out_dir, "acct_gather_energy_pm_counters.so"), src],
                   check=True)


def compile_c(src, out, *args):
    subprocess.run(["cc", "-O1", "-Wall", "-Werror", "-o", out, os.path.join(HERE, src), *args],
                   check=True)


class NodePowerTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="sm-power-")
        os.chmod(cls.tmp, 0o755)
        prefix = prefix_of(VERSION)
        preload = os.path.join(cls.tmp, "pm_counters_redirect.so")
        compile_c("pm_counters_redirect.c", preload, "-shared", "-fPIC", "-ldl")
        cls.oracle_bin = os.path.join(cls.tmp, "node_energy_oracle")
        lib = os.path.join(prefix, "lib")
        compile_c("node_energy_oracle.c", cls.oracle_bin, f"-I{prefix}/include",
                  f"-L{lib}", f"-Wl,-rpath,{lib}", "-lslurm")
        cls.counters = os.path.join(cls.tmp, "pm_counters")
        os.mkdir(cls.counters)
        # pm_counters gives up on a node whose energy file reads 0 when
        # slurmd starts (current_watts NO_VAL for good): readings first.
        cls.joules0 = 1_000_000
        cls.write(150, cls.joules0)
        extra = [
            "AcctGatherEnergyType=acct_gather_energy/pm_counters",
            # slurmctld asks slurmd for a new reading this often.
            "AcctGatherNodeFreq=5",
        ]
        slurm_plugins = plugin_dir_of(VERSION, prefix)
        if not os.path.exists(os.path.join(slurm_plugins, "acct_gather_energy_pm_counters.so")):
            own = os.path.join(cls.tmp, "plugins")
            os.mkdir(own)
            build_pm_counters(VERSION, own)
            # After test-cluster.sh's PluginDir line: the later one wins.
            extra.append(f"PluginDir={slurm_plugins}:{os.path.abspath(PLUGIN_DIR)}:{own}")
        os.environ["SM_SLURMD_PRELOAD"] = preload
        os.environ["SM_PM_COUNTERS_DIR"] = cls.counters
        try:
            cls.c = Cluster(VERSION, PLUGIN_DIR, conf_extra=extra)
        finally:
            del os.environ["SM_SLURMD_PRELOAD"]

    @classmethod
    def tearDownClass(cls):
        cls.c.cleanup()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    @classmethod
    def write(cls, watts, joules):
        for name, value in (("power", watts), ("energy", joules)):
            path = os.path.join(cls.counters, name)
            with open(path + ".new", "w") as f:
                f.write(f"{value} W\n" if name == "power" else f"{value} J\n")
            os.replace(path + ".new", path)

    def oracle(self):
        """{node: (current_watts, ave_watts, consumed_energy, poll_time)}."""
        out = {}
        for line in self.c.run(self.oracle_bin).splitlines():
            name, *rest = line.split()
            out[name] = None if rest == ["-"] else tuple(int(x) for x in rest)
        return out

    def scontrol_watts(self):
        t = self.c.nodes()[NODE]
        return t.get("CurrentWatts"), t.get("AveWatts")

    def scontrol_json_energy(self):
        """(consumed_energy, last_collected) of `scontrol show node --json`
        (23.11 on; 22.05's JSON has no energy: None)."""
        if VERSION.startswith("22.05"):
            return None
        nodes = json.loads(self.c.scontrol("show", "node", "--json", NODE))["nodes"]
        energy = nodes[0]["energy"]
        return (json_number(energy["consumed_energy"]),
                json_number(energy["last_collected"]))

    def check(self, watts, joules):
        """Waits for slurmctld to hold the reading `watts`, then compares
        every family with the daemon's numbers until they agree (a poll
        may land between our body and the daemon's answer)."""
        wait_for(f"scontrol CurrentWatts={watts}",
                 lambda: self.scontrol_watts()[0] == str(watts), timeout=60)

        compared = []  # the last comparison's differences

        def compare():
            before = self.oracle()
            current, average = self.scontrol_watts()
            from_json = self.scontrol_json_energy()
            self.c.wait_collections(2)
            ours = parse_exposition(self.c.scrape()[2].decode())
            after = self.oracle()
            if before != after:  # retried; a failure shows the last real differences
                return None, compared or [f"a reading landed meanwhile: {before} -> {after}"]
            cur, ave, consumed, poll = after[NODE]
            diffs = []
            if (str(cur), str(ave)) != (current, average):
                diffs.append(f"oracle {cur} {ave} W, scontrol {current} {average}")
            if from_json is not None and from_json != (consumed, poll):
                diffs.append(f"oracle {consumed} J at {poll}, scontrol --json {from_json}")
            want = {"slurm_node_power_watts": int(current),
                    "slurm_node_power_average_watts": int(average),
                    "slurm_node_energy_joules_total": consumed,
                    "slurm_node_energy_reading_timestamp_seconds": poll}
            for fam, value in want.items():
                got = [v for _, v in series(ours, fam, node_name=NODE)]
                if got != [value]:
                    diffs.append(f"{fam}: ours {got}, daemon {value}")
            # Ghosts never registered: zeroed records, which scontrol prints
            # as CurrentWatts=0; no reading, so no series.
            for ghost in ("ghost1", "ghost2"):
                if after.get(ghost) != (0, 0, 0, 0):
                    diffs.append(f"{ghost}: record {after.get(ghost)}, not zeroed")
            for fam in FAMILIES:
                others = [l for l, _ in series(ours, fam) if l.get("node_name") != NODE]
                if others:
                    diffs.append(f"{fam}: series for nodes without readings: {others}")
            compared[:] = diffs
            return consumed, diffs

        consumed = until_agree(self, f"power and energy at {watts} W", compare)
        # pm_counters adds up the energy file's differences since slurmd
        # read it first.
        self.assertEqual(consumed, joules - self.joules0)

    def test_readings_follow_the_files(self):
        self.check(150, self.joules0)
        # What scontrol prints for a zeroed record, where we print nothing.
        ghost = self.c.nodes()["ghost1"]
        self.assertEqual((ghost.get("CurrentWatts"), ghost.get("AveWatts")), ("0", "0"))
        self.write(275, self.joules0 + 3600)
        self.check(275, self.joules0 + 3600)
        self.write(90, self.joules0 + 4100)
        self.check(90, self.joules0 + 4100)
        # HELP/TYPE as documented: the energy is a counter.
        body = self.c.scrape()[2].decode()
        self.assertIn("# TYPE slurm_node_energy_joules_total counter\n", body)
        self.assertIn("# TYPE slurm_node_power_watts gauge\n", body)


if __name__ == "__main__":
    VERSION, PLUGIN_DIR = sys.argv[1], sys.argv[2]
    unittest.main(argv=sys.argv[:1], verbosity=2)
