// SPDX-License-Identifier: GPL-2.0-or-later
// HTTP content negotiation for a scrape: which exposition format (Accept)
// and whether to gzip (Accept-Encoding). Pure functions of the header
// values, so the listener, slurmctld's own router and the fuzzer share them.
#pragma once

#include <string_view>

#include "exposition/exposition.h"

namespace sm {

// Picks the format for an HTTP Accept header, as client_golang's
// expfmt.NegotiateIncludingOpenMetrics does: the acceptable media range
// with the highest q-value wins (earlier on a tie); OpenMetrics only for
// versions 0.0.1 and 1.0.0; a range with q=0 is never chosen; text when
// nothing matches.
Format NegotiateFormat(std::string_view accept_header);

// Whether to answer gzip-compressed, per RFC 9110 section 12.5.3: tokens are
// case-insensitive ("GZIP", and "x-gzip" as its alias), "q=0" refuses a
// coding, "*" stands for every coding not listed, identity is acceptable
// unless refused. Gzip wins when its weight is above zero and not below the
// weight identity was given (by name or by "*"); unlisted identity is only
// the fallback. An absent or empty header means identity.
bool NegotiateGzip(std::string_view accept_encoding_header);

// RFC 9110 section 12.4.2 qvalue: "0", "0.5", "1", "1.000"; at most three
// decimals. Returns the weight in thousandths, or -1 when malformed.
int ParseQValue(std::string_view s);

}  // namespace sm
