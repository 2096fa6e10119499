// SPDX-License-Identifier: GPL-2.0-or-later
#include "body.h"

#include <zlib.h>

namespace sm {
namespace {

std::string Gzip(const std::string& in) {
  z_stream zs{};
  // windowBits 15 + 16 asks zlib for a gzip header. Level 1: the body is
  // re-made every interval, so speed matters more than the last percent.
  if (deflateInit2(&zs, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    return {};
  std::string out;
  out.resize(deflateBound(&zs, in.size()));
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  // deflateBound() is about the size of the input: without this a kept
  // gzip form would hold as much memory as its plain text.
  out.shrink_to_fit();
  deflateEnd(&zs);
  return rc == Z_STREAM_END ? out : std::string();
}

}  // namespace

const std::string& Body::gzipped() const {
  std::call_once(gzip_once_, [this] {
    gzipped_ = Gzip(text_);
    gzip_made_.store(true, std::memory_order_release);
  });
  return gzipped_;
}

const std::shared_ptr<const Body>& Body::Empty() {
  // Leaked on purpose (see the header): a function-local static would be
  // destroyed by exit() while another thread still copies it.
  static const auto* empty =
      new std::shared_ptr<const Body>(std::make_shared<const Body>(std::string(), 0));
  return *empty;
}

}  // namespace sm
