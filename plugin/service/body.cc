// SPDX-License-Identifier: GPL-2.0-or-later
#include "body.h"

namespace sm {

const std::string& Body::gzipped(const Body* earlier) const {
  std::call_once(gzip_once_, [this, earlier] {
    const bool from_earlier = earlier && earlier != this && earlier->gzipped_size() > 0;
    gzip_ = from_earlier ? MakeGzipForm(text_, earlier->text_, &earlier->gzip_)
                         : MakeGzipForm(text_);
    gzip_made_.store(true, std::memory_order_release);
  });
  return gzip_.bytes;
}

const std::shared_ptr<const Body>& Body::Empty() {
  // Leaked on purpose (see the header): a function-local static would be
  // destroyed by exit() while another thread still copies it.
  static const auto* empty =
      new std::shared_ptr<const Body>(std::make_shared<const Body>(std::string(), 0));
  return *empty;
}

}  // namespace sm
