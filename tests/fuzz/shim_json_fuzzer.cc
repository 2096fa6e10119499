// SPDX-License-Identifier: GPL-2.0-or-later
// The shim's input reader (shim/input*.cc) on arbitrary file contents: JSON
// dumps of every supported kind and, for text that is not JSON, sdiag's
// text. Bad input must end in an exception (the shim reports it and exits
// with status 2, main.cc), never in a crash, a sanitizer report or a stack
// overflow.
#include <string>

#include "input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  shim::ClusterIn state;
  shim::UserTable users;
  try {
    shim::ReadInputText(text, "input.json", state, users);
  } catch (const std::exception&) {
    // main.cc turns these into an error message.
  }
  return 0;
}
