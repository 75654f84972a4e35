// The whole path on real mail (tests/fixtures/mail/fp-*.eml, from the
// SpamAssassin public corpus, headers replaced): mime::Parse, mime::Normalise,
// Compute, Compare.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>

#include "fingerprint/fingerprint.h"
#include "mime/message.h"

namespace mw::fingerprint {
namespace {

Fingerprint FromFixture(const std::string& name, const Options& options) {
  mime::Init();
  const std::string path =
      std::string(MW_SOURCE_DIR) + "/tests/fixtures/mail/" + name;
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in) << path;
  const std::string raw((std::istreambuf_iterator<char>(in)),
                        std::istreambuf_iterator<char>());
  auto message = mime::Parse(std::string_view(raw), mime::Limits{});
  EXPECT_TRUE(message.has_value()) << path;
  return Compute(message ? mime::Normalise(*message).body : std::string(),
                 options);
}

TEST(Fixtures, SameTemplateNewslettersAreNotDuplicates) {
  // Two daily "use Perl" headline mails: the same frame of boilerplate,
  // different headlines. The published score (counted blocks) calls them
  // duplicates; weighting by length does not.
  Options o;
  const Comparison c = Compare(FromFixture("fp-template-a.eml", o),
                               FromFixture("fp-template-b.eml", o), o);
  EXPECT_FALSE(c.duplicate) << MethodName(c.method);
  ASSERT_TRUE(c.similarity.has_value());
  EXPECT_LT(*c.similarity, o.duplicate_threshold);
  o.weigh_blocks = false;
  const Comparison counted = Compare(FromFixture("fp-template-a.eml", o),
                                     FromFixture("fp-template-b.eml", o), o);
  ASSERT_TRUE(counted.similarity.has_value());
  EXPECT_GE(*counted.similarity, o.duplicate_threshold);
}

TEST(Fixtures, TheSameFaqPostedTwiceIsADuplicate) {
  // One FAQ sent to two lists: a different subject tag, a list footer,
  // re-wrapped lines.
  const Options o;
  const Fingerprint a = FromFixture("fp-faq-a.eml", o);
  const Fingerprint b = FromFixture("fp-faq-b.eml", o);
  EXPECT_NE(a.body_sha1, b.body_sha1);
  const Comparison c = Compare(a, b, o);
  EXPECT_TRUE(c.duplicate);
  EXPECT_EQ(c.method, Method::kBlocks);
  // Every fingerprint of a message matches itself exactly.
  EXPECT_EQ(Compare(a, a, o).method, Method::kExact);
}

}  // namespace
}  // namespace mw::fingerprint
