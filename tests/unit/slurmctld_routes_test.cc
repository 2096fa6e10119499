// SPDX-License-Identifier: GPL-2.0-or-later
// Our routes on slurmctld's port: the decisions slurmctld's own /metrics/*
// routes make (src/slurmctld/http.c of 25.11.7 and 26.05.3), and what goes
// on the wire. The binding that feeds them from slurmctld is exercised by
// the shim (tests/shim/slurmctld_routes.py) and by hand (docs/compat.md).
#include "slurmctld_routes.h"

#include <gtest/gtest.h>

#include "collector.h"
#include "exporter.h"
#include "test_util.h"

namespace sm {
namespace {

using testing::Gunzip;
using testing::Samples;
using V = std::vector<std::string>;
using Rule = SlurmctldAccess::Rule;

class OneNodeSource : public Source {
 public:
  std::shared_ptr<NodeSnapshot> CollectNodes(LockTiming&, std::string&) override {
    return testing::OneIdleNode();
  }
  std::shared_ptr<JobSnapshot> CollectJobs(LockTiming&, std::string&) override {
    return testing::OneRunningJob();
  }
  std::shared_ptr<DiagSnapshot> CollectDiag(LockTiming&, std::string& err) override {
    err = "no statistics";
    return nullptr;
  }
};

std::string Header(const WireResponse& w, std::string_view name) {
  for (const auto& [k, v] : w.headers) {
    if (k == name) return v;
  }
  return "<absent>";
}

class SlurmctldRoutes : public ::testing::Test {
 protected:
  SlurmctldRoutes() : ex_(src_, Defaults(), Carrier::kMetrics, Offline()) {}
  static Config Defaults() {
    std::vector<ConfigMessage> msgs;
    return LoadConfig("", "test", [](const char*) { return nullptr; }, msgs);
  }
  static OfflineControl Offline() {
    OfflineControl o;
    o.manual_ticks = true;
    o.unix_now = [] { return int64_t{1800000000}; };
    return o;
  }
  void SetUp() override {
    ex_.Start();
    ex_.collector().CollectOnce();
  }
  void TearDown() override { ex_.Stop(); }

  // Serves one request; counts the calls of `authenticate`.
  WireResponse Serve(std::string_view method, std::string_view path,
                     std::string_view accept = "", std::string_view encoding = "") {
    HttpRequest req;
    req.method = method;
    req.path = path;
    req.accept = accept;
    req.accept_encoding = encoding;
    req.query = query_;
    req.tls = https_;
    last_ = ServeSlurmctldRoute(ex_, req, site_, [this] {
      ++auth_calls_;
      return caller_;
    });
    return ToWire(req, last_, site_.max_header_line);
  }

  OneNodeSource src_;
  Exporter ex_;
  // slurmctld 25.11.7/26.05.3: 79-byte header lines.
  SlurmctldSite site_{false, "ctl1", 6817, {}, 79};
  SlurmctldCaller caller_;
  std::string_view query_;
  bool https_ = false;
  int auth_calls_ = 0;
  HttpResponse last_;  // keeps the body the WireResponse points into
};

TEST_F(SlurmctldRoutes, BindsSevenPaths) {
  std::vector<std::string_view> paths;
  for (const SoperatorPath& p : SoperatorPaths()) paths.push_back(p.path);
  EXPECT_EQ(paths, (std::vector<std::string_view>{
                       "/metrics/soperator", "/metrics/soperator/nodes",
                       "/metrics/soperator/jobs", "/metrics/soperator/partitions",
                       "/metrics/soperator/scheduler",
                       "/metrics/soperator/jobs-users-accts",
                       "/metrics/soperator/monitoring"}));
}

TEST_F(SlurmctldRoutes, EachPathServesItsFamilies) {
  WireResponse w = Serve("GET", "/metrics/soperator");
  EXPECT_EQ(w.status, 200);
  EXPECT_EQ(w.content_type,
            "text/plain; version=0.0.4; charset=utf-8; escaping=underscores");
  // Soperator's and Slurm's node families, and both job families.
  EXPECT_EQ(Samples(w.payload, "slurm_node_cpus_total"),
            V{"slurm_node_cpus_total{node_name=\"n1\"} 4"});
  EXPECT_EQ(Samples(w.payload, "slurm_node_cpus"), V{"slurm_node_cpus{node=\"n1\"} 4"});
  EXPECT_EQ(Samples(w.payload, "slurm_jobs_running"), V{"slurm_jobs_running 1"});
  EXPECT_EQ(auth_calls_, 0) << "open access never authenticates";

  w = Serve("GET", "/metrics/soperator/nodes");
  EXPECT_EQ(Samples(w.payload, "slurm_node_cpus"), V{"slurm_node_cpus{node=\"n1\"} 4"});
  EXPECT_EQ(Samples(w.payload, "slurm_jobs_running"), V{});

  w = Serve("GET", "/metrics/soperator/jobs-users-accts");
  EXPECT_EQ(Samples(w.payload, "slurm_node_cpus"), V{});
  EXPECT_EQ(w.status, 200);

  // Two requests to /metrics/soperator so far, counted like Soperator's.
  w = Serve("GET", "/metrics/soperator/monitoring");
  EXPECT_EQ(Samples(w.payload, "slurm_exporter_metrics_requests_total"),
            V{"slurm_exporter_metrics_requests_total 1"});
}

TEST_F(SlurmctldRoutes, NegotiatesOpenMetricsGzipAndHead) {
  const WireResponse plain = Serve("GET", "/metrics/soperator/nodes");
  const std::string text(plain.payload);
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(Header(plain, "Content-Length"), "<absent>")
      << "slurmctld writes the length of a non-empty body itself";

  WireResponse w = Serve("GET", "/metrics/soperator/nodes",
                         "application/openmetrics-text;version=1.0.0");
  // "; escaping=underscores" would not fit slurmctld's 79-byte line; the
  // text type fits exactly.
  EXPECT_EQ(w.content_type, "application/openmetrics-text; version=1.0.0; charset=utf-8");
  EXPECT_EQ(last_.content_type,
            "application/openmetrics-text; version=1.0.0; charset=utf-8; escaping=underscores");
  EXPECT_TRUE(w.payload.ends_with("# EOF\n"));

  w = Serve("GET", "/metrics/soperator/nodes", "", "gzip");
  EXPECT_EQ(Header(w, "Content-Encoding"), "gzip");
  EXPECT_EQ(Gunzip(w.payload), text);
  // Accept-Encoding with q-values, as on our listener (RFC 9110).
  EXPECT_EQ(Header(Serve("GET", "/metrics/soperator/nodes", "", "gzip;q=0, identity"),
                   "Content-Encoding"),
            "<absent>");

  w = Serve("HEAD", "/metrics/soperator/nodes");
  EXPECT_TRUE(w.head);
  EXPECT_EQ(w.status, 200);
  EXPECT_EQ(w.payload, "");
  EXPECT_EQ(Header(w, "Content-Length"), std::to_string(text.size()));
  EXPECT_EQ(Header(w, "Content-Type"), plain.content_type);

  w = Serve("HEAD", "/metrics/soperator/nodes", "", "gzip");
  EXPECT_EQ(Header(w, "Content-Encoding"), "gzip");
  EXPECT_EQ(Header(w, "Content-Length"),
            std::to_string(Serve("GET", "/metrics/soperator/nodes", "", "gzip").payload.size()));
}

TEST_F(SlurmctldRoutes, StandbyRedirectsToThePrimaryBeforeAnyAuth) {
  site_.standby = true;
  site_.access.rule = Rule::kAuthenticate;
  query_ = "a=1";
  WireResponse w = Serve("GET", "/metrics/soperator/jobs");
  EXPECT_EQ(w.status, 303);
  EXPECT_EQ(Header(w, "Location"), "http://ctl1:6817/metrics/soperator/jobs?a=1");
  EXPECT_EQ(Header(w, "Content-Type"), "<absent>");
  EXPECT_EQ(w.payload, "");
  EXPECT_EQ(auth_calls_, 0);

  https_ = true;
  query_ = "";
  site_.primary_host = "fd00::1";
  w = Serve("HEAD", "/metrics/soperator");
  EXPECT_EQ(Header(w, "Location"), "https://[fd00::1]:6817/metrics/soperator");

  // 79 bytes: "Location: " + 67 + "\r\n"; one more does not fit.
  https_ = false;
  site_.primary_host = "ctl-controller-00001";
  EXPECT_EQ(Header(Serve("GET", "/metrics/soperator/jobs-users-accts"), "Location"),
            "http://ctl-controller-00001:6817/metrics/soperator/jobs-users-accts");
  site_.primary_host = "ctl-controller-00001x";
  w = Serve("GET", "/metrics/soperator/jobs-users-accts");
  EXPECT_EQ(w.status, 503);
  EXPECT_EQ(w.payload,
            "slurmctld: standby backup; the primary serves "
            "http://ctl-controller-00001x:6817/metrics/soperator/jobs-users-accts\n");

  site_.primary_host.clear();
  w = Serve("GET", "/metrics/soperator");
  EXPECT_EQ(w.status, 503);
  EXPECT_EQ(w.payload, "slurmctld: primary mode controller address unavailable\n");
}

// Unlike the data paths, the self-monitoring path is this process's own:
// a standby answers it, after the access rule, and says it is a standby.
// Redirected, a scraper following the 303 would store the primary's
// families under the standby's name (docs/scraping.md, "Standby").
TEST_F(SlurmctldRoutes, StandbyServesItsOwnSelfMonitoringAfterTheAccessRule) {
  site_.standby = true;
  WireResponse w = Serve("GET", "/metrics/soperator/monitoring");
  EXPECT_EQ(w.status, 200);
  EXPECT_EQ(Header(w, "Location"), "<absent>");
  EXPECT_EQ(Samples(std::string(w.payload), "slurm_exporter_collection_attempts_total"),
            V{"slurm_exporter_collection_attempts_total 1"});
  EXPECT_EQ(auth_calls_, 0);

  site_.access.rule = Rule::kAuthenticate;
  caller_ = {};  // not authenticated
  caller_.failure_status = 401;
  EXPECT_EQ(Serve("GET", "/metrics/soperator/monitoring").status, 401);
  EXPECT_EQ(auth_calls_, 1);
  EXPECT_EQ(Serve("GET", "/metrics/soperator").status, 303);
  EXPECT_EQ(auth_calls_, 1);
}

TEST_F(SlurmctldRoutes, PrivateDataOn2511IsUnauthorizedForEveryone) {
  site_.access.rule = Rule::kUnauthorized;
  caller_.authenticated = caller_.privileged = true;
  const WireResponse w = Serve("GET", "/metrics/soperator");
  EXPECT_EQ(w.status, 401);
  EXPECT_EQ(w.payload, "");
  EXPECT_EQ(Header(w, "Content-Length"), "0");
  EXPECT_EQ(auth_calls_, 0);
}

TEST_F(SlurmctldRoutes, MetricsAuthOn2605) {
  site_.access.rule = Rule::kAuthenticate;

  caller_.authenticated = false;
  caller_.failure_status = 401;
  caller_.failure = "Invalid authentication credential";
  WireResponse w = Serve("GET", "/metrics/soperator/jobs");
  EXPECT_EQ(w.status, 401);
  EXPECT_EQ(Header(w, "Content-Length"), "<absent>");
  EXPECT_EQ(w.payload,
            "slurmctld HTTP server request for 'GET /metrics/soperator/jobs':\n"
            "Failed: Invalid authentication credential\n");
  EXPECT_EQ(auth_calls_, 1);

  // No MetricsAuthUsers: root and SlurmUser only.
  caller_ = {true, 0, "", false, "alice"};
  w = Serve("GET", "/metrics/soperator/jobs");
  EXPECT_EQ(w.status, 403);
  EXPECT_EQ(w.payload,
            "slurmctld HTTP server request for 'GET /metrics/soperator/jobs':\n"
            "Failed: Operation not permitted\n");
  caller_.privileged = true;
  EXPECT_EQ(Serve("GET", "/metrics/soperator/jobs").status, 200);
  EXPECT_TRUE(last_.body != nullptr);

  // With a list: listed names, split like strtok_r(",").
  site_.access.auth_users = ",bob,,alice";
  caller_ = {true, 0, "", false, "alice"};
  EXPECT_EQ(Serve("GET", "/metrics/soperator/jobs").status, 200);
  caller_.user = "ali";
  EXPECT_EQ(Serve("GET", "/metrics/soperator/jobs").status, 403);
  caller_.user = "";
  EXPECT_EQ(Serve("GET", "/metrics/soperator/jobs").status, 403);
  caller_ = {true, 0, "", true, "slurm"};
  EXPECT_EQ(Serve("HEAD", "/metrics/soperator/jobs").status, 200);
  EXPECT_EQ(auth_calls_, 7);
}

// A render slot held elsewhere (another request rendering on a conmgr
// worker): the data paths answer 503 with Retry-After: 1 at once, the
// self-monitoring path still answers; given back, they serve again.
TEST_F(SlurmctldRoutes, OneRenderAtATimeOnSlurmctldsWorkers) {
  {
    const SlurmctldRenderSlot held;
    ASSERT_TRUE(held);
    EXPECT_FALSE(SlurmctldRenderSlot());  // kMax is 1
    // Bodies not cached (/metrics/soperator is not one of this carrier's
    // warm paths; nobody asked for OpenMetrics yet) need a render: refused.
    for (const auto& [path, accept] :
         {std::pair{"/metrics/soperator", ""},
          std::pair{"/metrics/soperator/jobs", "application/openmetrics-text;version=1.0.0"}}) {
      const WireResponse w = Serve("GET", path, accept, "gzip");
      EXPECT_EQ(w.status, 503) << path;
      EXPECT_EQ(Header(w, "Retry-After"), "1") << path;
      EXPECT_EQ(w.payload, "busy: another request is being rendered on slurmctld's "
                           "threads; try again\n");
    }
    // A cached body needs no slot: served while another render runs; its
    // first gzip would need one, so it goes plain.
    const WireResponse cached = Serve("GET", "/metrics/soperator/jobs", "", "gzip");
    EXPECT_EQ(cached.status, 200);
    EXPECT_EQ(Header(cached, "Content-Encoding"), "<absent>");
    EXPECT_TRUE(cached.payload.starts_with("# HELP slurm_job_info")) << cached.payload;
    EXPECT_EQ(Serve("GET", "/metrics/soperator/monitoring").status, 200);
    // slurmctld's own paths are this carrier's warm bodies: served from
    // the cache without a slot.
    const NativePathAnswer a = AnswerSlurmctldNativePath(&ex_, Endpoint::kNodes);
    ASSERT_TRUE(a.body) << a.error;
    EXPECT_NE(a.body->text().find("slurm_nodes"), std::string::npos);
  }
  EXPECT_EQ(Serve("GET", "/metrics/soperator/jobs").status, 200);
  const SlurmctldRenderSlot again;
  EXPECT_TRUE(again);  // given back by every request above
}

// slurmctld's own five paths under MetricsType: slurmctld sends 200 with
// what dump leaves, so where our routes answer 503 the body fails any
// exposition parser on purpose instead of being empty (docs/scraping.md,
// "Before the first collection").
TEST(SlurmctldNativePaths, NotAnEmptyBodyBeforeTheFirstCollection) {
  OneNodeSource src;
  std::vector<ConfigMessage> msgs;
  OfflineControl offline;
  offline.manual_ticks = true;
  Exporter ex(src, LoadConfig("", "test", [](const char*) { return nullptr; }, msgs),
              Carrier::kMetrics, offline);
  ex.Start();
  const NativePathAnswer before = AnswerSlurmctldNativePath(&ex, Endpoint::kJobs);
  EXPECT_FALSE(before.body);
  EXPECT_EQ(before.error,
            "# soperator-metrics: no collection yet: the metrics are not ready; try again "
            "in 5 s\n"
            "# slurmctld answers 200 to whatever its metrics plugin returns: the next line "
            "fails the scrape on purpose (docs/scraping.md, \"Before the first "
            "collection\")\n"
            "503 Service Unavailable: no collection yet: the metrics are not ready\n");
  const NativePathAnswer stopped = AnswerSlurmctldNativePath(nullptr, Endpoint::kJobs);
  EXPECT_FALSE(stopped.body);
  EXPECT_NE(stopped.error.find("\n503 Service Unavailable: soperator-metrics is not "
                               "running (see slurmctld's log)\n"),
            std::string::npos);
  ex.collector().CollectOnce();
  const NativePathAnswer after = AnswerSlurmctldNativePath(&ex, Endpoint::kJobs);
  ASSERT_TRUE(after.body);
  EXPECT_EQ(after.error, "");
  EXPECT_EQ(Samples(after.body->text(), "slurm_jobs_running"), V{"slurm_jobs_running 1"});
  ex.Stop();
}

TEST(SlurmctldRoutesWire, EmptyBodyBeforeTheFirstCollectionSaysLengthZero) {
  HttpRequest req;
  req.method = "GET";
  HttpResponse resp;
  resp.body = std::make_shared<const Body>(std::string(), 0);
  const WireResponse w = ToWire(req, resp);
  EXPECT_EQ(w.status, 200);
  EXPECT_EQ(w.payload, "");
  EXPECT_EQ(Header(w, "Content-Length"), "0");
  EXPECT_EQ(Header(w, "Content-Type"), resp.content_type);
}

}  // namespace
}  // namespace sm
