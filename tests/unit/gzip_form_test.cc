// SPDX-License-Identifier: GPL-2.0-or-later
// The gzip form made of reusable pieces (plugin/service/gzip_form.h),
// read back by zlib's own gzip reader; the shim's incremental_render.py
// has curl and Python read it too.
#include <gtest/gtest.h>
#include <zlib.h>

#include <random>
#include <string>

#include "gzip_form.h"

namespace sm {
namespace {

// zlib's gzip reader, as one member: everything must be consumed.
std::string Gunzip(const std::string& gz) {
  z_stream zs{};
  EXPECT_EQ(inflateInit2(&zs, 15 + 16), Z_OK);
  std::string out;
  char buf[1 << 16];
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gz.data()));
  zs.avail_in = static_cast<uInt>(gz.size());
  int rc = Z_OK;
  while (rc == Z_OK) {
    zs.next_out = reinterpret_cast<Bytef*>(buf);
    zs.avail_out = sizeof buf;
    rc = inflate(&zs, Z_NO_FLUSH);
    out.append(buf, sizeof buf - zs.avail_out);
  }
  EXPECT_EQ(rc, Z_STREAM_END);
  EXPECT_EQ(zs.avail_in, 0u) << "bytes after the gzip member";
  inflateEnd(&zs);
  return out;
}

// Where two texts first differ, for a failure message (gtest's own diff
// of two megabytes would take minutes).
std::string FirstDifference(const std::string& a, const std::string& b) {
  size_t i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
  return "sizes " + std::to_string(a.size()) + " and " + std::to_string(b.size()) +
         ", first difference at byte " + std::to_string(i);
}
#define EXPECT_SAME_TEXT(a, b)                         \
  do {                                                 \
    const std::string x_ = (a), y_ = (b);              \
    EXPECT_TRUE(x_ == y_) << FirstDifference(x_, y_);  \
  } while (0)

// Series lines like a body's, `n` of them.
std::string Lines(int n, int seed) {
  std::mt19937 rng(seed);
  std::string s;
  for (int i = 0; i < n; ++i) {
    s += "slurm_job_info{job_id=\"" + std::to_string(1000 + i) + "\",name=\"job" +
         std::to_string(rng() % 100000) + "\",user=\"u" + std::to_string(rng() % 40) +
         "\"} 1\n";
  }
  return s;
}

TEST(GzipForm, ReadsBackAsOneMember) {
  for (const std::string& text :
       {std::string(), std::string("a\n"), std::string(200000, 'x'),  // no newline
        Lines(40000, 1), std::string(2000000, 'y') + "\n" + Lines(10, 2)}) {
    const GzipForm gz = MakeGzipForm(text);
    ASSERT_FALSE(gz.bytes.empty());
    EXPECT_SAME_TEXT(Gunzip(gz.bytes), text);
    EXPECT_EQ(gz.reused_pieces, 0u);
  }
}

TEST(GzipForm, PiecesEndAtLineEndsWithinBounds) {
  const std::string text = Lines(60000, 3);
  const auto ends = GzipPieceEnds(text);
  ASSERT_GT(ends.size(), 20u);
  size_t start = 0;
  for (size_t i = 0; i < ends.size(); ++i) {
    EXPECT_EQ(text[ends[i] - 1], '\n');
    const size_t len = ends[i] - start;
    if (i + 1 < ends.size()) {
      EXPECT_GE(len, kMinGzipPiece);
    }
    EXPECT_LT(len, kMaxGzipPiece + 200);  // past the maximum by a line at most
    start = ends[i];
  }
  EXPECT_EQ(ends.back(), text.size());
}

TEST(GzipForm, ACopiedPieceIsTheSameText) {
  const std::string before = Lines(60000, 4);
  const GzipForm first = MakeGzipForm(before);
  // One line changed in the middle, one added near the start: the pieces
  // after them are cut where they were, and copied.
  std::string after = before;
  const size_t mid = after.find("job_id=\"31000\"");
  after[after.find("user=", mid) + 6] = 'X';
  after.insert(after.find('\n', 5000) + 1, "slurm_job_info{job_id=\"1\"} 1\n");
  const GzipForm second = MakeGzipForm(after, before, &first);
  EXPECT_SAME_TEXT(Gunzip(second.bytes), after);
  EXPECT_GE(second.reused_pieces + 4, second.pieces.size());
  EXPECT_GT(second.reused_pieces, 0u);
  // And from that one again, unchanged: every piece copied.
  const GzipForm third = MakeGzipForm(after, after, &second);
  EXPECT_EQ(third.reused_pieces, third.pieces.size());
  EXPECT_SAME_TEXT(third.bytes, second.bytes);
}

TEST(GzipForm, APieceWithTheSameEdgesButOtherBytesIsCompressedAgain) {
  const std::string before = Lines(3000, 5);
  const GzipForm first = MakeGzipForm(before);
  ASSERT_GT(first.pieces.size(), 1u);
  // Same length, same first and last bytes of every piece: only the
  // byte-for-byte comparison tells them apart.
  std::string after = before;
  const GzipPiece& p = first.pieces[0];
  after[p.text_offset + p.text_length / 2] ^= 1;
  const GzipForm second = MakeGzipForm(after, before, &first);
  EXPECT_SAME_TEXT(Gunzip(second.bytes), after);
  EXPECT_EQ(second.reused_pieces, second.pieces.size() - 1);
}

TEST(GzipForm, AnEarlierFormOfOtherTextIsHarmless) {
  const std::string a = Lines(20000, 6), b = Lines(20000, 7);
  const GzipForm fa = MakeGzipForm(a);
  // The wrong text for the form: every candidate fails the comparison.
  const GzipForm fb = MakeGzipForm(b, b, &fa);
  EXPECT_SAME_TEXT(Gunzip(fb.bytes), b);
}

}  // namespace
}  // namespace sm
