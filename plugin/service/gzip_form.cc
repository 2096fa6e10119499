// SPDX-License-Identifier: GPL-2.0-or-later
#include "gzip_form.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <unordered_map>

#include "base/fingerprint.h"

namespace sm {
namespace {

// One of 64 line ends past kMinGzipPiece cuts: pieces of ~48-60 KiB, big
// enough that starting each with an empty dictionary costs little (the
// deflate window is 32 KiB), small enough that a change costs little.
constexpr uint64_t kCutMask = 63;

// RFC 1952: magic, deflate, no flags, no time, fastest (level 1), Unix.
constexpr unsigned char kHeader[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 4, 3};
// An empty fixed-Huffman block with BFINAL set: the end of the stream.
constexpr unsigned char kFinalBlock[2] = {0x03, 0x00};

void AppendLe32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

// Raw deflate of one piece, level 1 (the body is made again every
// interval: speed matters more than the last percent), from a reset
// stream, ended by a sync flush (byte-aligned, not final).
class PieceDeflater {
 public:
  PieceDeflater() {
    ok_ = deflateInit2(&zs_, 1, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) == Z_OK;
  }
  ~PieceDeflater() {
    if (ok_) deflateEnd(&zs_);
  }
  PieceDeflater(const PieceDeflater&) = delete;
  PieceDeflater& operator=(const PieceDeflater&) = delete;

  bool Append(std::string_view piece, std::string& out) {
    if (!ok_ || deflateReset(&zs_) != Z_OK) return false;
    const size_t start = out.size();
    // deflateBound() covers one flush; the sync flush's marker is 5 bytes
    // on top (zlib's own advice for deflate with flushes).
    out.resize(start + deflateBound(&zs_, piece.size()) + 16);
    zs_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(piece.data()));
    zs_.avail_in = static_cast<uInt>(piece.size());
    zs_.next_out = reinterpret_cast<Bytef*>(out.data() + start);
    zs_.avail_out = static_cast<uInt>(out.size() - start);
    const int rc = deflate(&zs_, Z_SYNC_FLUSH);
    const bool done = rc == Z_OK && zs_.avail_in == 0 && zs_.avail_out > 0;
    out.resize(done ? out.size() - zs_.avail_out : start);
    return done;
  }

 private:
  z_stream zs_{};
  bool ok_ = false;
};

uint32_t Crc(std::string_view s) {
  uLong crc = crc32(0, nullptr, 0);
  // zlib takes uInt lengths; a piece is far smaller, but stay exact.
  while (!s.empty()) {
    const size_t n = std::min<size_t>(s.size(), 1u << 30);
    crc = crc32(crc, reinterpret_cast<const Bytef*>(s.data()), static_cast<uInt>(n));
    s.remove_prefix(n);
  }
  return static_cast<uint32_t>(crc);
}

// What finds a candidate among the earlier pieces without reading all of
// a piece: its length and its first and last bytes. A candidate is then
// compared byte for byte (cheaper than a CRC of every piece).
constexpr size_t kKeyEdge = 64;
uint64_t Key(std::string_view piece) {
  FingerprintHasher h;
  h.Word(piece.size());
  h.String(piece.substr(0, kKeyEdge));
  h.String(piece.substr(piece.size() - std::min(piece.size(), kKeyEdge)));
  return h.Finish().a;
}

}  // namespace

std::vector<size_t> GzipPieceEnds(std::string_view text) {
  constexpr size_t npos = std::string_view::npos;
  std::vector<size_t> ends;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.size();
    const size_t pos = start + kMinGzipPiece;
    if (pos < text.size()) {
      // From the line holding byte `pos`, each line decides by its hash.
      const size_t before = text.rfind('\n', pos - 1);
      size_t from = before == npos || before < start ? start : before + 1;
      for (;;) {
        const size_t nl = text.find('\n', from);
        if (nl == npos) break;
        const std::string_view line = text.substr(from, nl + 1 - from);
        if ((HashBytes(line) & kCutMask) == 0 || nl + 1 - start >= kMaxGzipPiece) {
          end = nl + 1;
          break;
        }
        from = nl + 1;
      }
    }
    ends.push_back(end);
    start = end;
  }
  return ends;
}

GzipForm MakeGzipForm(std::string_view text, std::string_view earlier_text,
                      const GzipForm* earlier) {
  GzipForm form;
  std::unordered_map<uint64_t, const GzipPiece*> known;
  if (earlier && !earlier->bytes.empty()) {
    known.reserve(earlier->pieces.size());
    for (const GzipPiece& p : earlier->pieces)
      if (p.text_offset + p.text_length <= earlier_text.size())
        known.emplace(Key(earlier_text.substr(p.text_offset, p.text_length)), &p);
  }
  // About the earlier form's size: pieces are mostly copied.
  form.bytes.reserve(earlier && !earlier->bytes.empty() ? earlier->bytes.size() + 1024
                                                        : text.size() / 8 + 64);
  form.bytes.append(reinterpret_cast<const char*>(kHeader), sizeof kHeader);
  PieceDeflater deflater;
  uLong crc = crc32(0, nullptr, 0);
  size_t start = 0;
  for (size_t end : GzipPieceEnds(text)) {
    GzipPiece p;
    p.text_offset = start;
    p.text_length = end - start;
    const std::string_view piece = text.substr(start, p.text_length);
    p.gzip_offset = form.bytes.size();
    const auto it = known.empty() ? known.end() : known.find(Key(piece));
    const GzipPiece* same = it == known.end() ? nullptr : it->second;
    if (same && earlier_text.substr(same->text_offset, same->text_length) == piece) {
      form.bytes.append(earlier->bytes, same->gzip_offset, same->gzip_length);
      p.crc = same->crc;
      ++form.reused_pieces;
    } else if (deflater.Append(piece, form.bytes)) {
      p.crc = Crc(piece);
    } else {
      return {};
    }
    p.gzip_length = form.bytes.size() - p.gzip_offset;
    crc = crc32_combine(crc, p.crc, static_cast<z_off_t>(p.text_length));
    form.pieces.push_back(p);
    start = end;
  }
  form.bytes.append(reinterpret_cast<const char*>(kFinalBlock), sizeof kFinalBlock);
  AppendLe32(form.bytes, static_cast<uint32_t>(crc));
  AppendLe32(form.bytes, static_cast<uint32_t>(text.size()));  // mod 2^32
  // Reserved for the copied case: a kept form holds only its size.
  form.bytes.shrink_to_fit();
  form.pieces.shrink_to_fit();
  return form;
}

}  // namespace sm
