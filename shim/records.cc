// SPDX-License-Identifier: GPL-2.0-or-later
#include "records.h"

#include "model/tres.h"

namespace shim {

TresCounts CountTres(const std::string& tres, const std::string& where) {
  TresCounts out;
  if (tres.empty()) return out;
  const auto t = sm::ParseTres(tres);
  if (!t) {
    Warn("tres-unparsable", where + ": \"" + tres +
         "\" is not a TRES string Soperator can read (cpu=N,mem=NM,gres/gpu=N); "
         "taken as empty");
    return out;
  }
  out.cpus = t->cpus;
  out.mem_mb = t->memory_bytes / (1024 * 1024);
  out.gpus = t->gpus;
  return out;
}

}  // namespace shim
