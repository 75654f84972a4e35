// The dictionary file: round trip through bytes and through a mapped file,
// determinism, and refusal of corrupt or truncated files.
#include "langid/model.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "langid/build.h"
#include "langid/src/format.h"
#include "tests/langid/testutil.h"

namespace mw::langid {
namespace {

using testing::TinyLists;

std::string TinyBytes() {
  auto bytes = Build(TinyLists(), BuildParams{});
  EXPECT_TRUE(bytes.has_value());
  return bytes ? *bytes : std::string();
}

void ExpectTinyContent(const Model& m) {
  ASSERT_EQ(m.languages().size(), 2u);
  EXPECT_EQ(m.languages()[0].code, "de");
  EXPECT_EQ(m.languages()[1].code, "en");
  EXPECT_EQ(m.languages()[1].script, "Latin");
  EXPECT_EQ(m.FindLanguage("en"), 1);
  EXPECT_EQ(m.FindLanguage("fr"), -1);
  // 3 words and the 13 distinct trigrams of " house ", " bank ", " haus ".
  EXPECT_EQ(m.entry_count(), 3u + 13u);
  EXPECT_EQ(m.pure_count(), 2u);
  EXPECT_EQ(m.shared_count(), 1u);

  const PostingList house = m.Lookup("house");
  ASSERT_EQ(house.size(), 1u);
  EXPECT_TRUE(house[0].pure);
  EXPECT_EQ(house[0].language, 1u);
  EXPECT_DOUBLE_EQ(house[0].weight, 1.0);

  const PostingList bank = m.Lookup("bank");
  ASSERT_EQ(bank.size(), 2u);
  EXPECT_FALSE(bank[0].pure);
  EXPECT_EQ(bank[0].language, 0u);  // de
  EXPECT_NEAR(bank[0].weight, 0.4, 1e-4);
  EXPECT_EQ(bank[1].language, 1u);  // en
  EXPECT_NEAR(bank[1].weight, 0.6, 1e-4);

  EXPECT_TRUE(m.Lookup("maison").empty());
  const PostingList ho = m.LookupNgram(" ho");
  ASSERT_EQ(ho.size(), 1u);
  EXPECT_EQ(ho[0].language, 1u);
  EXPECT_FALSE(ho[0].pure);
  EXPECT_EQ(m.LookupNgram("ank").size(), 2u);
  EXPECT_TRUE(m.LookupNgram("xyz").empty());
  EXPECT_TRUE(m.Lookup("ank").empty());  // trigrams are not words
  EXPECT_LT(m.ngram_floor(), 0);
  EXPECT_TRUE(m.Lookup("").empty());
}

TEST(ModelTest, RoundTripInMemory) {
  auto m = Model::FromBytes(TinyBytes());
  ASSERT_TRUE(m.has_value()) << m.error().message();
  ExpectTinyContent(*m);
  EXPECT_EQ(m->params().max_languages, BuildParams{}.max_languages);
  EXPECT_DOUBLE_EQ(m->params().pure_share, BuildParams{}.pure_share);
}

class TempFile {
 public:
  explicit TempFile(const std::string& content) {
    char name[] = "/tmp/mw_langid_test_XXXXXX";
    const int fd = mkstemp(name);
    EXPECT_GE(fd, 0);
    path_ = name;
    EXPECT_EQ(write(fd, content.data(), content.size()),
              static_cast<ssize_t>(content.size()));
    close(fd);
  }
  ~TempFile() { std::remove(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

TEST(ModelTest, RoundTripThroughMappedFile) {
  TempFile f(TinyBytes());
  auto m = Model::Open(f.path());
  ASSERT_TRUE(m.has_value()) << m.error().message();
  ExpectTinyContent(*m);
  Model moved = std::move(*m);  // the mapping moves with the model
  ExpectTinyContent(moved);
}

TEST(ModelTest, MissingFileIsNotFound) {
  auto m = Model::Open("/nonexistent/langid.dict");
  ASSERT_FALSE(m.has_value());
  EXPECT_EQ(m.error().code(), Error::Code::kNotFound);
  EXPECT_NE(m.error().message().find("/nonexistent/langid.dict"),
            std::string::npos);
}

TEST(ModelTest, DeterministicWhateverTheInputOrder) {
  auto lists = TinyLists();
  const std::string a = *Build(lists, BuildParams{});
  std::swap(lists[0], lists[1]);
  std::swap(lists[0].words[0], lists[0].words[1]);
  const std::string b = *Build(lists, BuildParams{});
  EXPECT_EQ(a, b);
  BuildParams other;
  other.pure_share = 0.55;  // "bank" (0.6 en) becomes tier 1: a different file
  EXPECT_NE(a, *Build(TinyLists(), other));
}

TEST(ModelTest, EveryFlippedByteIsRefused) {
  const std::string good = TinyBytes();
  for (std::size_t i = 0; i < good.size(); ++i) {
    std::string bad = good;
    bad[i] = static_cast<char>(bad[i] ^ 0x5a);
    auto m = Model::FromBytes(bad, "bad.dict");
    ASSERT_FALSE(m.has_value()) << "byte " << i;
    EXPECT_EQ(m.error().code(), Error::Code::kCorrupt);
    EXPECT_EQ(m.error().message().rfind("bad.dict: ", 0), 0u)
        << m.error().message();
  }
}

TEST(ModelTest, TruncatedFilesAreRefused) {
  const std::string good = TinyBytes();
  for (std::size_t n : {std::size_t{0}, std::size_t{7}, std::size_t{127},
                        std::size_t{128}, good.size() / 2, good.size() - 1}) {
    auto m = Model::FromBytes(good.substr(0, n), "cut.dict");
    ASSERT_FALSE(m.has_value()) << n;
    EXPECT_NE(m.error().message().find("truncated"), std::string::npos)
        << m.error().message();
  }
  TempFile empty("");
  auto m = Model::Open(empty.path());
  ASSERT_FALSE(m.has_value());
  EXPECT_NE(m.error().message().find("truncated"), std::string::npos);
}

TEST(ModelTest, OtherFilesAreRefusedWithAReason) {
  std::string text(200, 'x');
  auto m = Model::FromBytes(text, "notes.txt");
  ASSERT_FALSE(m.has_value());
  EXPECT_NE(m.error().message().find("bad magic"), std::string::npos);

  std::string v2 = TinyBytes();
  v2[8] = 2;  // version field
  m = Model::FromBytes(v2);
  ASSERT_FALSE(m.has_value());
  EXPECT_NE(m.error().message().find("version 2"), std::string::npos);
}

// `bytes` with header `h` and the checksum of what they hold now.
std::string WithChecksum(std::string bytes, internal::FileHeader h) {
  h.checksum = 0;
  std::memcpy(bytes.data(), &h, sizeof h);
  h.checksum = internal::FileChecksum(
      reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
  std::memcpy(bytes.data(), &h, sizeof h);
  return bytes;
}

// A variant's base must be another language that is not itself a variant: a
// file saying otherwise is refused even with a right checksum.
TEST(ModelTest, BadVariantBaseIsRefused) {
  std::vector<VariantList> variants = {{"nn", "en", {{"hou", 100}}}};
  auto good = Build(testing::TinyLists(), variants, BuildParams{});
  ASSERT_TRUE(good.has_value());
  ASSERT_TRUE(Model::FromBytes(*good).has_value());
  internal::FileHeader h;
  std::memcpy(&h, good->data(), sizeof h);
  ASSERT_EQ(h.language_count, 3u);  // de en nn
  auto with_base = [&](std::uint32_t base) {
    std::string bytes = *good;
    internal::LanguageRecord rec;
    const std::size_t at =
        h.languages_offset + 2 * sizeof(internal::LanguageRecord);
    std::memcpy(&rec, bytes.data() + at, sizeof rec);
    EXPECT_EQ(std::string(rec.code), "nn");
    rec.variant_of = base;
    std::memcpy(bytes.data() + at, &rec, sizeof rec);
    return Model::FromBytes(WithChecksum(std::move(bytes), h));
  };
  ASSERT_TRUE(with_base(1).has_value());       // en, as built
  for (std::uint32_t base : {2u, 3u, 300u}) {  // itself, none, none
    auto m = with_base(base);
    ASSERT_FALSE(m.has_value()) << base;
    EXPECT_NE(m.error().message().find("variant"), std::string::npos);
  }
}

// The first of a close pair names the other language, which is neither
// itself nor a variant nor in a pair.
TEST(ModelTest, BadPairLanguageIsRefused) {
  std::vector<VariantList> pairs = {{"de", "en", {{"hou", 100}}, true}};
  auto good = Build(testing::TinyLists(), pairs, BuildParams{});
  ASSERT_TRUE(good.has_value()) << good.error().message();
  auto built = Model::FromBytes(*good);
  ASSERT_TRUE(built.has_value());
  ASSERT_EQ(built->pairs(), std::vector<std::uint32_t>{0u});  // de, with en
  internal::FileHeader h;
  std::memcpy(&h, good->data(), sizeof h);
  ASSERT_EQ(h.language_count, 2u);  // de en
  auto with = [&](std::uint32_t other, std::uint32_t other_flags) {
    std::string bytes = *good;
    internal::LanguageRecord rec;
    const std::size_t at = h.languages_offset;
    std::memcpy(&rec, bytes.data() + at, sizeof rec);
    EXPECT_EQ(std::string(rec.code), "de");
    rec.variant_of = other;
    std::memcpy(bytes.data() + at, &rec, sizeof rec);
    std::memcpy(&rec, bytes.data() + at + sizeof rec, sizeof rec);
    rec.flags |= other_flags;
    std::memcpy(bytes.data() + at + sizeof rec, &rec, sizeof rec);
    return Model::FromBytes(WithChecksum(std::move(bytes), h));
  };
  ASSERT_TRUE(with(1, 0).has_value());  // en, as built
  for (const auto& [other, flags] :
       std::vector<std::pair<std::uint32_t, std::uint32_t>>{
           {0, 0}, {2, 0}, {1, internal::kLanguagePair}}) {
    auto m = with(other, flags);
    ASSERT_FALSE(m.has_value()) << other << " " << flags;
    EXPECT_NE(m.error().message().find("pair"), std::string::npos);
  }
}

}  // namespace
}  // namespace mw::langid
