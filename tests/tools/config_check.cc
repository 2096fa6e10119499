// SPDX-License-Identifier: GPL-2.0-or-later
// Reads a soperator_metrics.conf with the plugin's own reader and parser,
// as slurmctld's plugin does at start (no SLURM_EXPORTER_* environment),
// and prints every message it would log: "error: ..." or "warning: ...".
// Exit 1 when there is an error (the exporter would not start), 2 on bad
// usage, else 0. For tests that hold example files to the real parser.
//
// usage: config_check FILE
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "config/config_file.h"
#include "config/exporter_config.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: config_check FILE\n");
    return 2;
  }
  const std::string path = argv[1];
  std::vector<sm::ConfigMessage> messages;
  const sm::ConfigFile file = sm::ReadConfigFile(path);
  std::optional<std::string> text;
  if (file.state == sm::ConfigFile::State::kRead) text = file.text;
  if (file.state == sm::ConfigFile::State::kRefused)
    messages.push_back({true, path + ": " + file.problem});
  if (file.state == sm::ConfigFile::State::kMissing)
    messages.push_back({true, path + ": no such file"});
  sm::LoadConfig(text, path, [](const char*) -> const char* { return nullptr; },
                 messages);
  bool error = false;
  for (const sm::ConfigMessage& m : messages) {
    std::printf("%s: %s\n", m.error ? "error" : "warning", m.text.c_str());
    error |= m.error;
  }
  return error ? 1 : 0;
}
