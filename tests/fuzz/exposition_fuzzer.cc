// SPDX-License-Identifier: GPL-2.0-or-later
// Both encoders (text 0.0.4 and OpenMetrics 1.0) on a MetricSet built from
// fuzz bytes: label values of any bytes, duplicate series, any doubles
// (NaN, infinities, subnormals), histograms, disabled families. Each body
// must pass exposition_check.h.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstring>
#include <deque>

#include "exposition/exposition.h"
#include "exposition_check.h"

using namespace sm;

namespace {

constexpr double kBuckets[] = {0.001, 0.5, 1, 60};

const FamilyDef kGauge{"fz_gauge", "A gauge with \\ and \n in its help.",
                       MetricType::kGauge, {"node", "a", "state_base"}};
const FamilyDef kGaugeTwin{"fz_gauge", "Same name, registered second.",
                           MetricType::kGauge, {"node", "a", "state_base"}};
const FamilyDef kCounter{"fz_requests_total", "A counter \"quoted\".",
                         MetricType::kCounter, {"user"}};
const FamilyDef kBareCounter{"fz_events", "A counter without _total.",
                             MetricType::kCounter, {}};
const FamilyDef kHistogram{"fz_duration_seconds", "A histogram.",
                           MetricType::kHistogram, {"rpc"}, kBuckets};
const FamilyDef kNoLabels{"fz_up", "No labels.", MetricType::kGauge, {}};
const FamilyDef* const kDefs[] = {&kGauge, &kGaugeTwin, &kCounter,
                                  &kBareCounter, &kHistogram, &kNoLabels};

double ConsumeDouble(FuzzedDataProvider& in) {
  // Raw bit patterns reach NaN payloads, infinities and subnormals.
  uint64_t bits = in.ConsumeIntegral<uint64_t>();
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  std::vector<std::string> disabled;
  if (in.ConsumeBool()) disabled.emplace_back("fz_up");
  std::deque<HistogramValue> histograms;
  MetricSet set(&disabled);
  std::vector<Family*> families;
  for (const FamilyDef* def : kDefs) families.push_back(&set.Add(*def));
  for (int series = 0; series < 64 && in.remaining_bytes() > 0; ++series) {
    Family& f = *families[in.ConsumeIntegralInRange<size_t>(0, families.size() - 1)];
    std::vector<std::string_view> values;
    for (size_t i = 0; i < f.def().labels.size(); ++i)
      values.push_back(set.arena().Store(in.ConsumeRandomLengthString(40)));
    if (f.def().type == MetricType::kHistogram) {
      HistogramValue& h = histograms.emplace_back();
      for (size_t b = 0; b < std::size(kBuckets); ++b)
        h.bucket_counts.push_back(in.ConsumeIntegralInRange<uint64_t>(0, 1u << 20));
      h.count = in.ConsumeIntegral<uint64_t>();
      h.sum = ConsumeDouble(in);
      f.AddHistogram(values, &h);
    } else {
      f.Add(values, ConsumeDouble(in));
    }
  }
  set.Seal();
  for (Format format : {Format::kText, Format::kOpenMetrics}) {
    std::string out;
    set.Write(format, out);
    fuzz::CheckExposition(out, format == Format::kOpenMetrics);
    fuzz::Check(disabled.empty() || (out.find("\nfz_up") == std::string::npos &&
                                      out.find("\n# TYPE fz_up ") == std::string::npos),
                "a disabled family was written");
  }
  return 0;
}
