// Tests for mime/src/uuencode.cc: inline uuencoded files in plain text.
#include "mime/src/uuencode.h"

#include <gtest/gtest.h>

#include <string>

namespace mw::mime {
namespace {

// The classic encoder (45 bytes per line, '`' for zero), written out here
// independently of the decoder under test.
std::string Encode(const std::string& name, const std::string& data,
                   const std::string& eol = "\n") {
  auto ch = [](int v) { return static_cast<char>(v == 0 ? '`' : v + 0x20); };
  std::string out = "begin 644 " + name + eol;
  for (std::size_t i = 0; i < data.size(); i += 45) {
    const std::size_t n = std::min<std::size_t>(45, data.size() - i);
    out += ch(static_cast<int>(n));
    for (std::size_t k = 0; k < n; k += 3) {
      unsigned char b[3] = {0, 0, 0};
      for (std::size_t j = 0; j < 3 && k + j < n; ++j)
        b[j] = static_cast<unsigned char>(data[i + k + j]);
      out += ch(b[0] >> 2);
      out += ch(((b[0] & 3) << 4) | (b[1] >> 4));
      out += ch(((b[1] & 0xF) << 2) | (b[2] >> 6));
      out += ch(b[2] & 0x3F);
    }
    out += eol;
  }
  return out + "`" + eol + "end" + eol;
}

std::string AllBytes(int copies) {
  std::string d;
  for (int c = 0; c < copies; ++c)
    for (int i = 0; i < 256; ++i) d.push_back(static_cast<char>(i));
  return d;
}

TEST(FindUuBlocks, KnownEncoding) {
  const std::string text = "see below\nbegin 644 cat.txt\n#0V%T\n`\nend\nbye\n";
  const auto blocks = FindUuBlocks(text);
  ASSERT_EQ(blocks.size(), 1u);
  EXPECT_EQ(blocks[0].filename, "cat.txt");
  EXPECT_EQ(blocks[0].data, "Cat");
  EXPECT_TRUE(blocks[0].complete);
  EXPECT_EQ(text.substr(0, blocks[0].begin) + text.substr(blocks[0].end),
            "see below\nbye\n");
}

TEST(FindUuBlocks, RoundTripsEveryByteValueAndLength) {
  for (std::size_t len : {1u, 2u, 3u, 44u, 45u, 46u, 512u}) {
    const std::string data = AllBytes(2).substr(0, len);
    const auto blocks = FindUuBlocks(Encode("f.bin", data));
    ASSERT_EQ(blocks.size(), 1u) << len;
    EXPECT_EQ(blocks[0].data, data) << len;
  }
}

TEST(FindUuBlocks, CrlfLinesAndSeveralBlocks) {
  const std::string text = "a\r\n" + Encode("one.dat", "first", "\r\n") +
                           "b\r\n" + Encode("two dat.txt", AllBytes(1), "\r\n");
  const auto blocks = FindUuBlocks(text);
  ASSERT_EQ(blocks.size(), 2u);
  EXPECT_EQ(blocks[0].data, "first");
  EXPECT_EQ(blocks[1].filename, "two dat.txt");
  EXPECT_EQ(blocks[1].data, AllBytes(1));
  EXPECT_EQ(text.substr(blocks[0].end, blocks[1].begin - blocks[0].end),
            "b\r\n");
}

TEST(FindUuBlocks, ProseIsLeftAlone) {
  EXPECT_TRUE(
      FindUuBlocks("begin 644 ways to save money\nand then more\n").empty());
  EXPECT_TRUE(FindUuBlocks("begin 644 x\nend\n").empty());       // no data
  EXPECT_TRUE(FindUuBlocks("begin 9 x\n#0V%T\nend\n").empty());  // bad mode
  EXPECT_TRUE(FindUuBlocks("we begin 644 x\n#0V%T\nend\n").empty());
  // A length character that does not agree with the line.
  EXPECT_TRUE(FindUuBlocks("begin 644 x\nMABC\nend\n").empty());
}

TEST(FindUuBlocks, TruncatedBlockNeedsTwoDataLines) {
  std::string full = Encode("t.bin", AllBytes(1));
  // Cut after the second data line: kept, marked incomplete.
  std::size_t cut = 0;
  for (int lines = 0; lines < 3; ++lines) cut = full.find('\n', cut) + 1;
  auto blocks = FindUuBlocks(full.substr(0, cut) + "-- \nsignature\n");
  ASSERT_EQ(blocks.size(), 1u);
  EXPECT_FALSE(blocks[0].complete);
  EXPECT_EQ(blocks[0].data, AllBytes(1).substr(0, 90));
  // One data line only, then prose: not a block.
  cut = full.find('\n', full.find('\n') + 1) + 1;
  EXPECT_TRUE(FindUuBlocks(full.substr(0, cut) + "prose\n").empty());
}

}  // namespace
}  // namespace mw::mime
