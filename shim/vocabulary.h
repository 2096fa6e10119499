// SPDX-License-Identifier: GPL-2.0-or-later
// Slurm's words and this release's numbers for them: node state words to
// node_state bits, job state words to job_state, state_reason strings to
// enum job_state_reason, RPC names to opcodes. Words the release does not
// know are reported with Warn().
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "model.h"
#include "slurm_api.h"

namespace shim {

// Slurm version the shim is built for, e.g. "22.05.8", and its number.
const char* SlurmVersionString();
uint32_t SlurmVersionNumber();

// job_state_reason_string() and rpc_num2string() read backwards. Built on
// first use; call both once before taking any lock.
const std::unordered_map<std::string, uint32_t>& ReasonIds();
const std::unordered_map<std::string, uint16_t>& RpcIds();

// node_state of a node's words: one base (Soperator's priority when the
// input has several; MIXED is stored as ALLOCATED), the flags; NO_VAL for
// INVALID.
uint32_t NodeStateOf(const NodeIn& n);
// job_state: the first base word, the flag words; 22.05's single flag
// word gets the base it most likely hides.
uint32_t JobStateOf(const JobIn& j);
// enum job_state_reason of the job's state_reason (WAIT_NO_REASON when
// unknown).
uint32_t ReasonOf(const JobIn& j);

// RPC names of this release by opcode, sorted.
std::vector<std::pair<uint16_t, std::string>> KnownRpcs();

}  // namespace shim
