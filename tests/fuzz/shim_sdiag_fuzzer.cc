// SPDX-License-Identifier: GPL-2.0-or-later
// The shim's reader of `sdiag` text output (shim/input_sdiag_text.cc) on arbitrary
// text. Bad input ends in an exception, never a crash.
#include <string>

#include "input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  shim::ClusterIn state;
  shim::UserTable users;
  try {
    shim::ReadSdiagText(text, "sdiag.txt", state, users);
  } catch (const std::exception&) {
    // main.cc turns these into an error message.
  }
  return 0;
}
