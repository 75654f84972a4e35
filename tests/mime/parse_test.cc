// mime::Parse on generated hostile and limit-hitting messages.
#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <string>

#include "mime/message.h"

namespace mw::mime {
namespace {

std::string Join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += s + "\n";
  return out;
}

std::string Simple(const std::string& headers, const std::string& body) {
  return "From: a@example.org\r\nTo: b@example.org\r\n" + headers + "\r\n" +
         body;
}

// `depth` nested multipart/mixed containers around one text part.
std::string Nested(int depth) {
  std::string head =
      "From: a@example.org\r\nSubject: deep\r\nMIME-Version: 1.0\r\n";
  std::string open;
  std::string close;
  for (int i = 0; i < depth; ++i) {
    const std::string b = "b" + std::to_string(i);
    open += "Content-Type: multipart/mixed; boundary=\"" + b + "\"\r\n\r\n--" +
            b + "\r\n";
    close = "\r\n--" + b + "--\r\n" + close;
  }
  return head + open + "Content-Type: text/plain\r\n\r\ninnermost text\r\n" +
         close;
}

TEST(Parse, EmptyInputIsAnError) {
  auto r = Parse(std::string_view(), Limits{});
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().message(), "empty message");
}

TEST(Parse, MboxFromLineIsSkipped) {
  auto r = Parse("From alice@example.org Mon Nov  2 10:00:00 2026\n" +
                     Simple("Subject: hi\r\n", "Body text.\r\n"),
                 Limits{});
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->subject, "hi");
  EXPECT_EQ(Normalise(*r).body, "body text.");
}

TEST(Parse, HeaderlessInputIsReadAsPlainText) {
  auto r = Parse("just some words\nwithout any header\n", Limits{});
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(Normalise(*r).body, "just some words\nwithout any header");
}

TEST(Parse, NestingBeyondLimitIsSkippedWithWarning) {
  Limits limits;
  limits.nesting_limit = 10;
  auto r = Parse(Nested(50), limits);
  ASSERT_TRUE(r.has_value());
  EXPECT_TRUE(r->truncated);
  EXPECT_EQ(r->body, "");
  EXPECT_NE(Join(r->warnings).find("mime.nesting_limit"), std::string::npos)
      << Join(r->warnings);
}

TEST(Parse, ThousandDeepNestingDoesNotCrash) {
  auto r = Parse(Nested(1000), Limits{});
  ASSERT_TRUE(r.has_value());
  EXPECT_TRUE(r->truncated);
  EXPECT_FALSE(r->warnings.empty());
}

TEST(Parse, NestingWithinLimitReachesTheText) {
  auto r = Parse(Nested(20), Limits{});
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(Normalise(*r).body, "innermost text");
  ASSERT_EQ(r->parts.size(), 1u);
  EXPECT_EQ(r->parts[0].depth, 20u);
  EXPECT_EQ(r->parts[0].path, "1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1");
}

TEST(Parse, PartCountLimit) {
  std::string body;
  for (int i = 0; i < 30; ++i) {
    body += "--p\r\nContent-Type: text/plain\r\n\r\npart " + std::to_string(i) +
            "\r\n";
  }
  body += "--p--\r\n";
  Limits limits;
  limits.max_parts = 11;  // the multipart itself plus ten leaves
  auto r = Parse(
      Simple(
          "MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=p\r\n",
          body),
      limits);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->parts.size(), 10u);
  EXPECT_TRUE(r->truncated);
  EXPECT_NE(Join(r->warnings).find("mime.max_parts"), std::string::npos);
}

TEST(Parse, TextBudgetCutsAtCharacterBoundary) {
  std::string text;
  for (int i = 0; i < 1000; ++i) text += "\xc3\xa9";  // é, two bytes each
  Limits limits;
  limits.max_text_bytes = 101;
  auto r = Parse(Simple("Content-Type: text/plain; charset=utf-8\r\n", text),
                 limits);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->body.size(), 100u);  // 50 whole characters, never half of one
  EXPECT_TRUE(r->truncated);
}

TEST(Parse, MaxBytesTruncatesInput) {
  Limits limits;
  limits.max_bytes = 2048;
  auto r = Parse(Simple("Subject: big\r\n", std::string(10000, 'a') + "\r\n"),
                 limits);
  ASSERT_TRUE(r.has_value());
  EXPECT_TRUE(r->truncated);
  EXPECT_LT(r->body.size(), 2048u);
  EXPECT_NE(Join(r->warnings).find("mime.max_bytes"), std::string::npos);
}

TEST(Parse, HugeHeaderLineIsCut) {
  const std::string subject(100 * 1024 + 17, 'x');
  Limits limits;
  limits.header_size_limit = 1000;
  auto r = Parse(Simple("Subject: " + subject + "\r\n", "body\r\n"), limits);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->subject.size(), 1000u);
  EXPECT_EQ(Normalise(*r).body, "body");
}

TEST(Parse, TwentyMegabyteAttachmentIsHashedNotRead) {
  std::string payload(20 * 1024 * 1024, '\0');
  for (size_t i = 0; i < payload.size(); ++i)
    payload[i] = static_cast<char>((i * 131) & 0xFF);
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  ASSERT_EQ(
      EVP_Digest(payload.data(), payload.size(), md, &len, EVP_sha1(), nullptr),
      1);
  char hex[41];
  for (unsigned i = 0; i < 20; ++i) snprintf(hex + 2 * i, 3, "%02x", md[i]);

  std::string msg =
      "From: a@example.org\r\nSubject: big attachment\r\nMIME-Version: 1.0\r\n"
      "Content-Type: multipart/mixed; boundary=\"z\"\r\n\r\n--z\r\n"
      "Content-Type: text/plain\r\n\r\nSee the file.\r\n--z\r\n"
      "Content-Type: application/octet-stream\r\nContent-Transfer-Encoding: "
      "binary\r\n"
      "Content-Disposition: attachment; filename=\"blob.bin\"\r\n\r\n" +
      payload + "\r\n--z--\r\n";
  auto r = Parse(msg, Limits{});
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(Normalise(*r).body, "see the file.");
  ASSERT_EQ(r->parts.size(), 2u);
  EXPECT_TRUE(r->parts[1].attachment);
  EXPECT_EQ(r->parts[1].filename, "blob.bin");
  EXPECT_EQ(r->parts[1].sha1, std::string(hex));
  // GMime keeps the line ending before the boundary in a binary part: one byte
  // of slack.
  EXPECT_GE(r->parts[1].size, payload.size());
  EXPECT_LE(r->parts[1].size, payload.size() + 2);
}

TEST(Parse, InlineUuencodedFileBecomesAnAttachment) {
  // "Cat" uuencoded inside a plain-text body, as pre-MIME mailers sent files.
  const std::string msg =
      Simple("Subject: oops\r\n",
             "The trace is attached.\r\nbegin 644 oops1.dat\r\n#0V%T\r\n`\r\n"
             "end\r\n\r\nthanks\r\n");
  auto r = Parse(msg, Limits{});
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(Normalise(*r).body, "the trace is attached.\n\nthanks");
  ASSERT_EQ(r->parts.size(), 2u);
  const Part& file = r->parts[1];
  EXPECT_EQ(file.path, "1.uu1");
  EXPECT_TRUE(file.attachment);
  EXPECT_EQ(file.filename, "oops1.dat");
  EXPECT_EQ(file.transfer_encoding, "uuencode");
  EXPECT_EQ(file.size, 3u);
  EXPECT_EQ(file.sha1, "cebe54c7626cb1cefaca5f7f5ea6c96b4a7a2882");
}

TEST(Parse, PartSummaryDescribesEachLeaf) {
  const std::string msg =
      "From: a@example.org\r\nMIME-Version: 1.0\r\n"
      "Content-Type: multipart/mixed; boundary=\"o\"\r\n\r\n--o\r\n"
      "Content-Type: multipart/alternative; boundary=\"i\"\r\n\r\n--i\r\n"
      "Content-Type: text/plain; charset=ISO-8859-1\r\n"
      "Content-Transfer-Encoding: quoted-printable\r\n\r\nCaf=E9 au lait, long "
      "enough to win.\r\n"
      "--i\r\nContent-Type: text/html; "
      "charset=utf-8\r\n\r\n<p>Caf\xc3\xa9</p>\r\n--i--\r\n"
      "--o\r\nContent-Type: image/png; "
      "name=\"dot.png\"\r\nContent-Transfer-Encoding: base64\r\n\r\n"
      "iVBORw0KGgo=\r\n--o--\r\n";
  auto r = Parse(msg, Limits{});
  ASSERT_TRUE(r.has_value());
  ASSERT_EQ(r->parts.size(), 3u);
  EXPECT_EQ(r->parts[0].path, "1.1");
  EXPECT_EQ(r->parts[0].content_type, "text/plain");
  EXPECT_EQ(r->parts[0].declared_charset, "iso-8859-1");
  EXPECT_EQ(r->parts[0].charset_used, "windows-1252");
  EXPECT_EQ(r->parts[0].transfer_encoding, "quoted-printable");
  EXPECT_TRUE(r->parts[0].used_for_text);
  EXPECT_EQ(r->parts[1].path, "1.2");
  EXPECT_FALSE(r->parts[1].used_for_text);  // the other alternative
  EXPECT_EQ(r->parts[2].path, "2");
  EXPECT_TRUE(r->parts[2].attachment);
  EXPECT_EQ(r->parts[2].filename, "dot.png");
  EXPECT_EQ(r->parts[2].size, 8u);
  EXPECT_EQ(r->parts[2].sha1.size(), 40u);
  EXPECT_EQ(Normalise(*r).body, "café au lait, long enough to win.");
}

TEST(Parse, TextAttachmentIsNotBodyText) {
  const std::string msg =
      "From: a@example.org\r\nMIME-Version: 1.0\r\n"
      "Content-Type: multipart/mixed; boundary=\"o\"\r\n\r\n--o\r\n"
      "Content-Type: text/plain\r\n\r\nBody.\r\n--o\r\n"
      "Content-Type: text/plain\r\nContent-Disposition: attachment; "
      "filename=log.txt\r\n\r\n"
      "attached log lines\r\n--o--\r\n";
  auto r = Parse(msg, Limits{});
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(Normalise(*r).body, "body.");
  ASSERT_EQ(r->parts.size(), 2u);
  EXPECT_TRUE(r->parts[1].attachment);
}

// GMime's diagnostics are asked for only with Limits::parser_warnings (they
// make GMime decode every header as it parses); the text is the same
// either way, and so is everything mailwave's own checks report.
TEST(Parse, ParserWarningsOnlyWhenAsked) {
  const std::string raw = Simple(
      "Subject: one\r\nSubject: two\r\nMIME-Version: 1.0\r\n"
      "Content-Type: multipart/mixed; boundary=b\r\n",
      "--b\r\nContent-Type: text/plain\r\n\r\nthe text\r\n");  // no --b--
  Limits asked;
  asked.parser_warnings = true;
  auto with = Parse(raw, asked);
  ASSERT_TRUE(with.has_value());
  const std::string warnings = Join(with->warnings);
  EXPECT_NE(warnings.find("parser: conflicting header"), std::string::npos)
      << warnings;
  EXPECT_NE(warnings.find("parser: truncated message"), std::string::npos)
      << warnings;
  EXPECT_TRUE(with->truncated);

  EXPECT_FALSE(Limits{}.parser_warnings);
  auto without = Parse(raw, Limits{});
  ASSERT_TRUE(without.has_value());
  EXPECT_TRUE(without->warnings.empty()) << Join(without->warnings);
  EXPECT_FALSE(without->truncated);
  EXPECT_EQ(Normalise(*without).body, Normalise(*with).body);
  EXPECT_EQ(Normalise(*without).body, "the text");
  EXPECT_EQ(without->subject, with->subject);
}

TEST(Parse, GarbageDoesNotCrash) {
  std::string junk;
  uint32_t x = 12345;
  for (int i = 0; i < 200000; ++i) {
    x = x * 1103515245 + 12345;
    junk.push_back(static_cast<char>(x >> 24));
  }
  auto r = Parse(junk, Limits{});
  ASSERT_TRUE(r.has_value());
  const Text t = Normalise(*r);
  // Whatever came out is valid UTF-8: ICU round-trips it unchanged.
  EXPECT_EQ(NormaliseText(t.body), t.body);
}

}  // namespace
}  // namespace mw::mime
