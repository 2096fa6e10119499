// SPDX-License-Identifier: GPL-2.0-or-later
// Reading Slurm's own dumps: the data_parser JSON of `scontrol show nodes
// --json`, `squeue --json`, `scontrol show jobs --json`, `scontrol show
// partitions --json`, `sdiag --json`, 22.05's `sinfo --json`/`squeue
// --json` (openapi v0.0.38) and `sdiag` text, and slurmrestd's /nodes,
// /jobs, /diag responses (v0.0.40-v0.0.45). The kind of a document is told
// by its content, never by its file name.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "model.h"

namespace shim {

using json = nlohmann::json;

// Bad input: names the file, the JSON path and what was expected. The CLI
// prints it and exits with status 2.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Non-fatal remarks about the input ("this field cannot be replayed ...").
// The first few of each kind go to stderr at once; FlushWarnings() tells
// how many more of each kind there were.
void Warn(const char* kind, const std::string& message);
void FlushWarnings();

// Where a value is: file plus a jq-style path (".jobs[3].job_state").
struct At {
  std::string file;
  std::string path;
  At Key(std::string_view k) const;
  At Index(size_t i) const;
  std::string str() const;  // "FILE: .jobs[3].job_state"
};

// Reads one file into `state`: appends nodes, jobs and partitions, sets the
// diag part (twice is an error), learns uid -> name pairs.
void ReadInputFile(const std::string& path, ClusterIn& state, UserTable& users);
// The same for a file's content; `file` only names it in messages.
void ReadInputText(const std::string& text, const std::string& file,
                   ClusterIn& state, UserTable& users);

// Parses JSON text. Raw bytes that are not UTF-8 (Slurm copies node reasons
// and job names byte for byte) are kept: they come back out of the string
// getters unchanged.
json ParseJsonText(const std::string& text, const std::string& file);

// A whole document (any supported kind) or, for scenarios, an inline part.
void AddDocument(const json& doc, const At& at, ClusterIn& state,
                 UserTable& users);
// One part for a scenario step: "nodes", "jobs", "partitions" or
// "statistics" as the part's own value, or a whole document holding it.
void AddPart(std::string_view key, const json& v, const At& at, ClusterIn& state,
             UserTable& users);
void AddNodes(const json& array_or_object, const At& at, ClusterIn& state);
void AddJobs(const json& array_or_object, const At& at, ClusterIn& state,
             UserTable& users);
void AddPartitions(const json& array, const At& at, ClusterIn& state);
void SetDiag(const json& statistics, const At& at, ClusterIn& state,
             UserTable& users);
// slurm.conf's NodeSet= lines, `scontrol show topology` of topology/block
// or topology.conf's BlockName= lines: true when `text` is one of those
// (a line starting with NodeSet=, BlockName= or AggregatedBlock=), and
// then its lines are in `state`.
bool ReadNodeGroupsText(const std::string& text, const std::string& file, ClusterIn& state);

void ReadSdiagText(const std::string& text, const std::string& file,
                   ClusterIn& state, UserTable& users);

// Reads a file into a string; InputError when it cannot.
std::string ReadWholeFile(const std::string& path);

}  // namespace shim
