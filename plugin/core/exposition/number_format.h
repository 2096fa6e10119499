// SPDX-License-Identifier: GPL-2.0-or-later
// Number formatting that reproduces the bytes client_golang's expfmt writes,
// because Soperator's dashboards and golden files were made from that output.
#pragma once

#include <cstdint>
#include <string>

namespace sm {

// Prometheus text 0.0.4: Go strconv.FormatFloat(v, 'g', -1, 64) with expfmt's
// special cases (+Inf, -Inf, NaN). Examples: 16, 1e+06, 2.00651309056e+11.
void AppendTextFloat(std::string& out, double v);

// OpenMetrics 1.0 as client_golang writes it: like the text form, but a
// value without '.' or 'e' gets ".0" (16.0, 1.0, 0.0).
void AppendOpenMetricsFloat(std::string& out, double v);

void AppendInt(std::string& out, int64_t v);
void AppendUint(std::string& out, uint64_t v);

}  // namespace sm
