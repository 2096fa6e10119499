// SPDX-License-Identifier: GPL-2.0-or-later
// Accept and Accept-Encoding negotiation (RFC 9110 section 12), including
// the cases a hostile-client review found answered wrongly.
#include <gtest/gtest.h>

#include "exposition/negotiation.h"

namespace sm {
namespace {

TEST(Negotiate, PrometheusAndPlainClients) {
  EXPECT_EQ(NegotiateFormat(""), Format::kText);
  EXPECT_EQ(NegotiateFormat("text/plain;version=0.0.4"), Format::kText);
  // Prometheus 2.x's scrape Accept header.
  EXPECT_EQ(NegotiateFormat("application/openmetrics-text;version=1.0.0,"
                            "application/openmetrics-text;version=0.0.1;q=0."
                            "75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1"),
            Format::kOpenMetrics);
  EXPECT_EQ(NegotiateFormat("text/plain;q=0.9, application/openmetrics-text;"
                            "q=0.5"),
            Format::kText);
  EXPECT_EQ(NegotiateFormat("application/openmetrics-text; version=2.0.0"),
            Format::kText);
  EXPECT_EQ(NegotiateFormat("application/json"), Format::kText);
}

TEST(Negotiate, FormatQValues) {
  // q=0 means "not acceptable": never chosen, whatever its position.
  EXPECT_EQ(NegotiateFormat("application/openmetrics-text;q=0"), Format::kText);
  EXPECT_EQ(NegotiateFormat("application/openmetrics-text;q=0, text/plain;q=0.1"),
            Format::kText);
  EXPECT_EQ(NegotiateFormat("text/plain;q=0.1, application/openmetrics-text;q=0.2"),
            Format::kOpenMetrics);
  // Equal weights: the earlier range wins.
  EXPECT_EQ(NegotiateFormat("text/plain, application/openmetrics-text"), Format::kText);
  EXPECT_EQ(NegotiateFormat("application/openmetrics-text, text/plain"),
            Format::kOpenMetrics);
  // Media types and parameter names are case-insensitive.
  EXPECT_EQ(NegotiateFormat("Application/OpenMetrics-Text; Q=1"), Format::kOpenMetrics);
  // A malformed weight makes the range unacceptable (strtod would take
  // "1e5", "inf" or "nan").
  EXPECT_EQ(NegotiateFormat("text/plain;q=0.5, application/openmetrics-text;q=1e5"),
            Format::kText);
  EXPECT_EQ(NegotiateFormat("application/openmetrics-text;q=nan"), Format::kText);
  // text/plain of another version does not count as text (client_golang).
  EXPECT_EQ(NegotiateFormat("text/plain;version=1.0.0, application/openmetrics-text;q=0.5"),
            Format::kOpenMetrics);
  // A quoted parameter may hold a comma.
  EXPECT_EQ(NegotiateFormat("text/plain;x=\"a,application/openmetrics-text\";q=0.1,"
                            "application/openmetrics-text;q=0.2"),
            Format::kOpenMetrics);
}

TEST(Negotiate, QValueGrammar) {
  EXPECT_EQ(ParseQValue("0"), 0);
  EXPECT_EQ(ParseQValue("1"), 1000);
  EXPECT_EQ(ParseQValue("0.5"), 500);
  EXPECT_EQ(ParseQValue("0.123"), 123);
  EXPECT_EQ(ParseQValue("1.000"), 1000);
  EXPECT_EQ(ParseQValue("0."), 0);
  EXPECT_EQ(ParseQValue("1.001"), -1);
  EXPECT_EQ(ParseQValue("0.1234"), -1);
  EXPECT_EQ(ParseQValue("2"), -1);
  EXPECT_EQ(ParseQValue("-1"), -1);
  EXPECT_EQ(ParseQValue(".5"), -1);
  EXPECT_EQ(ParseQValue(""), -1);
  EXPECT_EQ(ParseQValue("0.5x"), -1);
}

TEST(Negotiate, GzipPerRfc9110) {
  EXPECT_FALSE(NegotiateGzip(""));
  EXPECT_TRUE(NegotiateGzip("gzip"));
  EXPECT_TRUE(NegotiateGzip("gzip, deflate, br"));
  EXPECT_TRUE(NegotiateGzip("deflate;q=0.5, gzip;q=0.8"));
  // That review's probes.
  EXPECT_FALSE(NegotiateGzip("gzip;q=0"));
  EXPECT_FALSE(NegotiateGzip("identity, gzip;q=0"));
  EXPECT_FALSE(NegotiateGzip("nogzip"));
  EXPECT_TRUE(NegotiateGzip("GZIP"));
  EXPECT_TRUE(NegotiateGzip("GZip;Q=0.5"));
  EXPECT_FALSE(NegotiateGzip("gzip;q=0.000"));
  EXPECT_FALSE(NegotiateGzip("gzipx, xgzip, gzip-like"));
  EXPECT_TRUE(NegotiateGzip("x-gzip"));
  // "*" covers what is not listed.
  EXPECT_TRUE(NegotiateGzip("*"));
  EXPECT_FALSE(NegotiateGzip("*;q=0"));
  EXPECT_FALSE(NegotiateGzip("gzip;q=0, *"));
  EXPECT_TRUE(NegotiateGzip("identity;q=0.5, *"));
  // The client prefers identity.
  EXPECT_FALSE(NegotiateGzip("identity, gzip;q=0.5"));
  EXPECT_TRUE(NegotiateGzip("identity;q=0.5, gzip"));
  EXPECT_FALSE(NegotiateGzip("*;q=0.5, gzip;q=0.3"));  // identity through "*"
  EXPECT_TRUE(NegotiateGzip("gzip, identity"));
  // Gzip is not listed: not acceptable either; identity is all we have.
  EXPECT_FALSE(NegotiateGzip("identity;q=0"));
  // Malformed weights: the element is ignored.
  EXPECT_FALSE(NegotiateGzip("gzip;q=2"));
  EXPECT_FALSE(NegotiateGzip("gzip;q=abc"));
  EXPECT_TRUE(NegotiateGzip("gzip;q=abc, gzip"));
  // White space and empty elements (RFC 9110 section 5.6.1).
  EXPECT_TRUE(NegotiateGzip(" , ,\tgzip ; q=1 ,"));
}

}  // namespace
}  // namespace sm
