// SPDX-License-Identifier: GPL-2.0-or-later
#include "exposition/number_format.h"

#include <charconv>
#include <cmath>
#include <string_view>

namespace sm {
namespace {

// Shortest round-trip digits of |v| and its decimal exponent, taken from
// std::to_chars' scientific form ("d.ddde±X"), which yields the same digits
// Go's strconv picks in shortest mode.
struct Digits {
  char d[32];
  int nd = 0;  // number of significant digits
  int dp = 0;  // position of the decimal point relative to d[0]
};

Digits ShortestDigits(double v) {
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, std::fabs(v),
                           std::chars_format::scientific);
  Digits out;
  const char* p = buf;
  for (; p < res.ptr && *p != 'e'; ++p) {
    if (*p != '.') out.d[out.nd++] = *p;
  }
  int exp10 = 0;
  if (p < res.ptr) {  // "e+09" / "e-07"; the buffer is not NUL-terminated
    const bool negative = p[1] == '-';
    std::from_chars(p + 2, res.ptr, exp10);
    if (negative) exp10 = -exp10;
  }
  out.dp = exp10 + 1;
  return out;
}

void AppendExponent(std::string& out, int exp) {
  out.push_back('e');
  out.push_back(exp < 0 ? '-' : '+');
  if (exp < 0) exp = -exp;
  if (exp < 10) out.push_back('0');  // Go prints at least two digits
  AppendInt(out, exp);
}

// strconv.FormatFloat(v, 'g', -1, 64) for finite, non-zero v.
void AppendGoShortest(std::string& out, double v) {
  const Digits digs = ShortestDigits(v);
  if (std::signbit(v)) out.push_back('-');
  const int exp = digs.dp - 1;
  if (exp < -4 || exp >= 6) {  // shortest mode decides with precision 6
    out.push_back(digs.d[0]);
    if (digs.nd > 1) {
      out.push_back('.');
      out.append(digs.d + 1, digs.nd - 1);
    }
    AppendExponent(out, exp);
    return;
  }
  if (digs.dp > 0) {
    const int int_digits = digs.dp < digs.nd ? digs.dp : digs.nd;
    out.append(digs.d, int_digits);
    for (int i = int_digits; i < digs.dp; ++i) out.push_back('0');
  } else {
    out.push_back('0');
  }
  const int frac = digs.nd - digs.dp;
  if (frac > 0) {
    out.push_back('.');
    for (int i = 0; i < frac; ++i) {
      const int idx = digs.dp + i;
      out.push_back(idx >= 0 && idx < digs.nd ? digs.d[idx] : '0');
    }
  }
}

bool AppendSpecial(std::string& out, double v) {
  if (std::isnan(v)) {
    out.append("NaN");
  } else if (std::isinf(v)) {
    out.append(v > 0 ? "+Inf" : "-Inf");
  } else {
    return false;
  }
  return true;
}

}  // namespace

void AppendTextFloat(std::string& out, double v) {
  if (AppendSpecial(out, v)) return;
  if (v == 0) {  // also -0: expfmt prints "0"
    out.push_back('0');
    return;
  }
  AppendGoShortest(out, v);
}

void AppendOpenMetricsFloat(std::string& out, double v) {
  if (AppendSpecial(out, v)) return;
  if (v == 0) {
    out.append("0.0");
    return;
  }
  const size_t start = out.size();
  AppendGoShortest(out, v);
  if (std::string_view(out).substr(start).find_first_of(".e") ==
      std::string_view::npos) {
    out.append(".0");
  }
}

void AppendInt(std::string& out, int64_t v) {
  char buf[24];
  auto res = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, res.ptr);
}

void AppendUint(std::string& out, uint64_t v) {
  char buf[24];
  auto res = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, res.ptr);
}

}  // namespace sm
