// `mailwave extract` as a user runs it: exit statuses, one-line errors, text
// and JSON output.
#include <gtest/gtest.h>

#include <string>

#include "cli_test_util.h"

namespace {

using mw::cli_test::Fixture;
using mw::cli_test::Mailwave;
using mw::cli_test::Outcome;

TEST(ExtractCli, PrintsNormalisedText) {
  const Outcome r = Mailwave("extract " + Fixture("forwarded-rfc822.eml"));
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, "see below.\n\nthe forwarded text, résumé included.\n");
}

TEST(ExtractCli, ReadsStandardInput) {
  const Outcome r = Mailwave("extract - < " + Fixture("charset-koi8-r.eml"));
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out.rfind("в чащах юга", 0), 0u) << r.out;
}

TEST(ExtractCli, JsonCarriesPartsAndWarnings) {
  const Outcome r =
      Mailwave("extract --json " + Fixture("hostile-truncated-base64.eml"));
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out.front(), '{');
  EXPECT_NE(r.out.find("\"subject\":\"truncated\""), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("\"transfer_encoding\":\"base64\""), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("\"part 1: base64 content is truncated or malformed\""),
            std::string::npos)
      << r.out;
}

// extract shows GMime's parser diagnostics although the default
// configuration (mime.parser_warnings = false, as the milter runs) leaves
// them out of the analysis.
TEST(ExtractCli, JsonShowsParserDiagnosticsWhateverTheConfiguration) {
  const Outcome r =
      Mailwave("extract --json " + Fixture("hostile-missing-boundary.eml"));
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("\"parser: truncated message\""), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("\"truncated\":true"), std::string::npos) << r.out;
}

TEST(ExtractCli, JsonNamesAttachmentsWithTheirHash) {
  const Outcome r =
      Mailwave("extract --json " + Fixture("header-rfc2047-rfc2231.eml"));
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("\"filename\":\"naïve résumé.pdf\""), std::string::npos)
      << r.out;
  // SHA-1 of the decoded attachment bytes "%PDF-1.4 fake".
  EXPECT_NE(r.out.find("\"sha1\":\"a6a1c8998d4f5f1b2224127ad170540cd46ebf3d\""),
            std::string::npos)
      << r.out;
}

TEST(ExtractCli, UnreadableInputExitsOne) {
  const Outcome r = Mailwave("extract /nonexistent/message.eml");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out,
            "mailwave extract: /nonexistent/message.eml: No such file or "
            "directory\n");
}

TEST(ExtractCli, EmptyInputExitsOne) {
  const Outcome r = Mailwave("extract - < /dev/null");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out, "mailwave extract: -: empty message\n");
}

TEST(ExtractCli, UsageErrorsExitTwo) {
  Outcome r = Mailwave("extract");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
  r = Mailwave("extract --bogus x.eml");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("unknown option --bogus"), std::string::npos);
  r = Mailwave("extract a.eml b.eml");
  EXPECT_EQ(r.status, 2);
  r = Mailwave("no-such-command");
  EXPECT_EQ(r.status, 2);
}

TEST(ExtractCli, ConfigErrorExitsTwoNamingFileAndKey) {
  const std::string path = testing::TempDir() + "/bad-mailwave.toml";
  FILE* f = fopen(path.c_str(), "w");
  ASSERT_NE(f, nullptr);
  fputs("[mime]\nmax_bytes = \"2GiB\"\n", f);
  fclose(f);
  const Outcome r =
      Mailwave("-c " + path + " extract " + Fixture("encoding-7bit.eml"));
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "mailwave: " + path +
                       ":2: mime.max_bytes: must be between 1 KiB and 1 GiB\n");
}

TEST(ExtractCli, HelpIsComplete) {
  const Outcome r = Mailwave("extract --help");
  EXPECT_EQ(r.status, 0);
  for (const char* s :
       {"Usage:", "--json", "Exit status:", "mime.max_bytes", "Examples:"}) {
    EXPECT_NE(r.out.find(s), std::string::npos) << s;
  }
}

}  // namespace
