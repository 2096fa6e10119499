// SPDX-License-Identifier: GPL-2.0-or-later
// What two snapshots of a part are compared by: a render takes the families
// that follow from the jobs or the nodes alone from the body it replaces
// when that part's content is what it was (docs/performance.md, "Render
// cost that follows change"). Every field is hashed: the records' Fields()
// (snapshot.h) name each one, and the compiler counts those names against
// the struct's fields, so a field added to Job, Node, Partition or
// GresCount stops the build until it is named there. Nothing here names a
// field: the hash follows the description.
#include <optional>
#include <string_view>
#include <type_traits>
#include <vector>

#include "model/snapshot.h"

namespace sm {
namespace {

// Small fields (flags, enums, presence bits, 32-bit numbers) share words:
// a job is hashed for every render after a collection, and fewer words is
// most of what that costs (bench/render_bench.cc, BM_JobsContent).
class PackedHasher {
 public:
  explicit PackedHasher(FingerprintHasher& h) : h_(h) {}
  ~PackedHasher() { Flush(); }
  PackedHasher(const PackedHasher&) = delete;
  PackedHasher& operator=(const PackedHasher&) = delete;

  void Bits(uint64_t v, int width) {
    if (used_ + width > 64) Flush();
    pending_ |= v << used_;
    used_ += width;
  }
  // Wide values and strings go straight to the hasher; their order among
  // the packed words is fixed by the field order, which is all a
  // comparison of two snapshots of one process needs.
  void Word(uint64_t w) { h_.Word(w); }
  void String(std::string_view s) { h_.String(s); }
  void Flush() {
    if (used_ == 0) return;
    h_.Word(pending_);
    pending_ = 0;
    used_ = 0;
  }

 private:
  FingerprintHasher& h_;
  uint64_t pending_ = 0;
  int used_ = 0;
};

template <class T>
concept Described = requires(const T& t) { Fields(t, [](const auto&...) {}); };

template <class T>
void Hash(PackedHasher& h, const T& v);

template <class T>
void HashAll(PackedHasher& h, const T& record) {
  Fields(record, [&h](const auto&... fields) { (Hash(h, fields), ...); });
}

template <class T>
void Hash(PackedHasher& h, const T& v) {
  if constexpr (std::is_same_v<T, std::string_view>) {
    h.String(v);
  } else if constexpr (std::is_same_v<T, bool>) {
    h.Bits(v, 1);
  } else if constexpr (std::is_enum_v<T>) {
    static_assert(sizeof(T) == 1);
    h.Bits(static_cast<uint8_t>(v), 8);
  } else if constexpr (std::is_integral_v<T> && sizeof(T) <= 4) {
    h.Bits(static_cast<std::make_unsigned_t<T>>(v), 32);
  } else if constexpr (std::is_integral_v<T>) {
    h.Word(static_cast<uint64_t>(v));
  } else if constexpr (requires { v.has_value(); }) {
    h.Bits(v.has_value(), 1);
    Hash(h, v.value_or(typename T::value_type{}));
  } else if constexpr (requires { v.size(); v.begin(); }) {
    h.Word(v.size());
    for (const auto& e : v) Hash(h, e);
  } else {
    static_assert(Described<T>, "a field of a kind the content hash does not know");
    HashAll(h, v);
  }
}

// A field that moves with the clock goes to its own hasher (`clocked`), so
// that a group not reading it can compare the rest alone.
class JobHasher {
 public:
  JobHasher(FingerprintHasher& besides, FingerprintHasher& clocked)
      : besides_(besides), clocked_(clocked) {}

  // Flattened: one job's fields hashed without a call per field.
  [[gnu::flatten]] void operator()(const Job& job) {
    Fields(job, [this](const auto&... fields) { (One(fields), ...); });
  }

 private:
  template <class T>
  void One(const T& v) {
    Hash(besides_, v);
  }
  template <class T>
  void One(const Clocked<T>& v) {
    Hash(clocked_, v.value);
  }

  PackedHasher besides_, clocked_;
};

}  // namespace

Fingerprint NodeSnapshot::Content() const {
  return content_.Get([this] {
    FingerprintHasher h;
    {
      PackedHasher p(h);
      Hash(p, nodes);
      Hash(p, partitions);
      Hash(p, unlisted_nodes);
    }
    return h.Finish();
  });
}

const NodeGroupIndex& NodeSnapshot::Groups() const {
  return groups_.Get([this] {
    NodeGroupIndex index;
    for (const Node& n : nodes)
      if (!n.nodeset.empty() || !n.nvlink_instance_group.empty())
        index.emplace(n.name, NodeGroupLabels{n.nodeset, n.nvlink_instance_group});
    return index;
  });
}

Fingerprint NodeSnapshot::GroupsContent() const {
  return groups_content_.Get([this] {
    FingerprintHasher h;
    for (const Node& n : nodes) {
      if (n.nodeset.empty() && n.nvlink_instance_group.empty()) continue;
      h.String(n.name);
      h.String(n.nodeset);
      h.String(n.nvlink_instance_group);
    }
    return h.Finish();
  });
}

// One pass for both: a second walk over 50,000 jobs costs more in cache
// misses than the few words it hashes (bench/render_bench.cc,
// BM_JobsContent).
const std::array<Fingerprint, 2>& JobSnapshot::Contents() const {
  return contents_.Get([this] {
    FingerprintHasher besides, times;
    {
      JobHasher hash(besides, times);
      besides.Word(native_nodes_alloc_per_record);
      besides.Word(jobs.size());
      for (const Job& j : jobs) hash(j);
    }
    const Fingerprint b = besides.Finish(), t = times.Finish();
    FingerprintHasher all;
    for (uint64_t w : {b.a, b.b, t.a, t.b}) all.Word(w);
    return std::array<Fingerprint, 2>{all.Finish(), b};
  });
}

Fingerprint JobSnapshot::Content() const { return Contents()[0]; }
Fingerprint JobSnapshot::ContentBesidesTimes() const { return Contents()[1]; }

}  // namespace sm
