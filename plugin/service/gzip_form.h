// SPDX-License-Identifier: GPL-2.0-or-later
// A body's gzip form, made of pieces that the next body can reuse: the
// text is cut at line ends where its own content says so, each piece is
// deflated alone and ended by a sync flush, and the pieces go into one
// ordinary gzip member (header, the pieces, an empty final block, CRC-32
// and size). A piece of the next body with the same bytes is copied
// instead of compressed again: with nothing changing in the cluster, only
// the pieces holding values that moved (running jobs' durations, our own
// self-monitoring) are compressed (docs/performance.md, "Render cost that
// follows change"). Every gzip reader sees a single member; a piece never
// refers back past its own start.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sm {

struct GzipPiece {
  size_t text_offset = 0, text_length = 0;
  size_t gzip_offset = 0, gzip_length = 0;  // its deflate bytes in the form
  uint32_t crc = 0;                         // CRC-32 of its text
};

struct GzipForm {
  std::string bytes;  // the whole gzip member
  std::vector<GzipPiece> pieces;
  size_t reused_pieces = 0;  // copied from the earlier form
};

// Where the pieces of `text` end (exclusive offsets, the last one
// text.size()): after a line once a piece holds kMinGzipPiece bytes and
// the line's hash says so, after the first line end past kMaxGzipPiece at
// the latest. Cut by content, so that a line added or removed moves the cuts
// of a piece or two, not of every piece after it.
std::vector<size_t> GzipPieceEnds(std::string_view text);
inline constexpr size_t kMinGzipPiece = 48 << 10;
inline constexpr size_t kMaxGzipPiece = 512 << 10;

// The gzip form of `text`. With an earlier form (and the text it was made
// from), pieces whose bytes are the same as one of its pieces are copied
// from it. Empty `bytes` if zlib fails.
GzipForm MakeGzipForm(std::string_view text, std::string_view earlier_text = {},
                      const GzipForm* earlier = nullptr);

}  // namespace sm
