// Tests for mime/src/html_tokenizer.h: the copy of the HTML5 tokenizer.
#include "mime/src/html_tokenizer.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

namespace mw::mime::internal {
namespace {

// One token as "kind:span" (tags also ":name"), for readable expectations.
std::vector<std::string> Tokens(std::string_view in) {
  static const char* const kNames[] = {
      "text", "lt", "start", "end", "doctype", "comment", "cut", "raw", "eof"};
  std::vector<std::string> out;
  Tokenizer tokenizer(in);
  std::size_t pos = 0;
  while (true) {
    Token t = tokenizer.Next();
    // The contract every test relies on: contiguous tokens.
    EXPECT_EQ(t.begin, pos) << in;
    pos = t.end;
    std::string s = kNames[static_cast<int>(t.kind)];
    if (t.kind == TokenKind::kEnd) {
      EXPECT_EQ(t.begin, in.size());
      out.push_back(s);
      // Still kEnd on later calls.
      EXPECT_EQ(tokenizer.Next().kind, TokenKind::kEnd);
      return out;
    }
    s += ":" + std::string(in.substr(t.begin, t.end - t.begin));
    if (t.kind == TokenKind::kStartTag || t.kind == TokenKind::kEndTag)
      s += ":" + t.name;
    out.push_back(s);
  }
}

using V = std::vector<std::string>;

TEST(HtmlTokenizer, EmptyInputIsJustTheEnd) { EXPECT_EQ(Tokens(""), V{"eof"}); }

TEST(HtmlTokenizer, TextAndTags) {
  EXPECT_EQ(Tokens("a<B class=x>b</b >c"),
            (V{"text:a", "start:<B class=x>:b", "text:b", "end:</b >:b",
               "text:c", "eof"}));
}

TEST(HtmlTokenizer, QuotedGreaterThanDoesNotEndATag) {
  EXPECT_EQ(Tokens("<a title=\"x>y\" alt='>'>t"),
            (V{"start:<a title=\"x>y\" alt='>'>:a", "text:t", "eof"}));
}

TEST(HtmlTokenizer, AttributesWithoutValuesAndSelfClosing) {
  Tokenizer t("<input disabled checked =  x/><br/>");
  Token input = t.Next();
  EXPECT_EQ(input.kind, TokenKind::kStartTag);
  EXPECT_EQ(input.name, "input");
  EXPECT_EQ(input.name_end, 6u);
  EXPECT_EQ(input.attrs_end, 29u);  // the '>' (an unquoted value takes '/')
  EXPECT_EQ(input.end, 30u);
  Token br = t.Next();
  EXPECT_EQ(br.name, "br");
  EXPECT_EQ(br.end, 35u);
}

TEST(HtmlTokenizer, AttributeNameMayStartWithEquals) {
  EXPECT_EQ(Tokens("<a =b>x"), (V{"start:<a =b>:a", "text:x", "eof"}));
}

TEST(HtmlTokenizer, AttributesPastTheLimitAreMarked) {
  std::string tag = "<p";
  for (std::size_t i = 0; i < kMaxAttributes + 3; ++i) tag += " a";
  tag += ">";
  Tokenizer t(tag);
  Token p = t.Next();
  EXPECT_EQ(p.kind, TokenKind::kStartTag);
  // Just before the first attribute past the limit.
  EXPECT_EQ(p.attrs_end, 2 + 2 * kMaxAttributes + 1);
  EXPECT_EQ(p.end, tag.size());
}

TEST(HtmlTokenizer, StrayLessThanIsText) {
  EXPECT_EQ(Tokens("1 < 2 <3 <"), (V{"text:1 ", "lt:<", "text: 2 ", "lt:<",
                                     "text:3 ", "lt:<", "eof"}));
  EXPECT_EQ(Tokens("</"), (V{"lt:<", "text:/", "eof"}));
}

TEST(HtmlTokenizer, Comments) {
  EXPECT_EQ(Tokens("a<!-- x -- y --!>b<!---->c<!-->d<!--->e"),
            (V{"text:a", "comment:<!-- x -- y --!>", "text:b",
               "comment:<!---->", "text:c", "comment:<!-->", "text:d",
               "comment:<!--->", "text:e", "eof"}));
  // A conditional comment is one comment, markup and all.
  EXPECT_EQ(Tokens("<!--[if mso]><p>x</p><![endif]-->y"),
            (V{"comment:<!--[if mso]><p>x</p><![endif]-->", "text:y", "eof"}));
}

TEST(HtmlTokenizer, BogusComments) {
  EXPECT_EQ(Tokens("<?xml x?>a<!x>b</ x>c</>d<![CDATA[e]]>f"),
            (V{"comment:<?xml x?>", "text:a", "comment:<!x>", "text:b",
               "comment:</ x>", "text:c", "comment:</>", "text:d",
               "comment:<![CDATA[e]]>", "text:f", "eof"}));
}

TEST(HtmlTokenizer, Doctype) {
  EXPECT_EQ(Tokens("<!DocType html>x"),
            (V{"doctype:<!DocType html>", "text:x", "eof"}));
}

// The end of input in every state: the tokenizer consumes everything, and
// nothing cut is a tag.
TEST(HtmlTokenizer, EndOfInputInEveryState) {
  EXPECT_EQ(Tokens("<"), (V{"lt:<", "eof"}));                   // tag open
  EXPECT_EQ(Tokens("<a"), (V{"cut:<a", "eof"}));                // tag name
  EXPECT_EQ(Tokens("</a"), (V{"cut:</a", "eof"}));              // end tag
  EXPECT_EQ(Tokens("<a "), (V{"cut:<a ", "eof"}));              // before attr
  EXPECT_EQ(Tokens("<a b"), (V{"cut:<a b", "eof"}));            // attr name
  EXPECT_EQ(Tokens("<a b "), (V{"cut:<a b ", "eof"}));          // after name
  EXPECT_EQ(Tokens("<a b="), (V{"cut:<a b=", "eof"}));          // before value
  EXPECT_EQ(Tokens("<a b=\"x>"), (V{"cut:<a b=\"x>", "eof"}));  // "value"
  EXPECT_EQ(Tokens("<a b='x"), (V{"cut:<a b='x", "eof"}));      // 'value'
  EXPECT_EQ(Tokens("<a b=x"), (V{"cut:<a b=x", "eof"}));        // value
  EXPECT_EQ(Tokens("<a/"), (V{"cut:<a/", "eof"}));              // self-closing
  EXPECT_EQ(Tokens("<!"), (V{"comment:<!", "eof"}));            // markup decl.
  EXPECT_EQ(Tokens("<!-"), (V{"comment:<!-", "eof"}));          // bogus comment
  EXPECT_EQ(Tokens("<!--"), (V{"comment:<!--", "eof"}));        // comment start
  EXPECT_EQ(Tokens("<!--x-"), (V{"comment:<!--x-", "eof"}));    // comment
  EXPECT_EQ(Tokens("<!--x--"), (V{"comment:<!--x--", "eof"}));
  EXPECT_EQ(Tokens("<!--x--!"), (V{"comment:<!--x--!", "eof"}));
  EXPECT_EQ(Tokens("<?x"), (V{"comment:<?x", "eof"}));
  EXPECT_EQ(Tokens("</ x"), (V{"comment:</ x", "eof"}));
  EXPECT_EQ(Tokens("<!doctype html"), (V{"cut:<!doctype html", "eof"}));
  EXPECT_EQ(Tokens("<style>p{"), (V{"start:<style>:style", "raw:p{", "eof"}));
  EXPECT_EQ(Tokens("<style>"), (V{"start:<style>:style", "raw:", "eof"}));
  EXPECT_EQ(Tokens("<title>x</title"),  // not an end tag yet
            (V{"start:<title>:title", "raw:x</title", "eof"}));
  EXPECT_EQ(Tokens("<title>x</title "),
            (V{"start:<title>:title", "raw:x", "cut:</title ", "eof"}));
  EXPECT_EQ(Tokens("<script><!--<script>"),
            (V{"start:<script>:script", "raw:<!--<script>", "eof"}));
}

TEST(HtmlTokenizer, RawTextEndsOnlyAtItsOwnEndTag) {
  EXPECT_EQ(Tokens("<style>a<b></STYLEx></style>c"),
            (V{"start:<style>:style", "raw:a<b></STYLEx>", "end:</style>:style",
               "text:c", "eof"}));
  EXPECT_EQ(Tokens("<textarea><!-- x --></textarea/>"),
            (V{"start:<textarea>:textarea", "raw:<!-- x -->",
               "end:</textarea/>:textarea", "eof"}));
  EXPECT_EQ(Tokens("<xmp><b></xmp>"),
            (V{"start:<xmp>:xmp", "raw:<b>", "end:</xmp>:xmp", "eof"}));
}

TEST(HtmlTokenizer, PlaintextRunsToTheEnd) {
  EXPECT_EQ(Tokens("<plaintext>a</plaintext><b>"),
            (V{"start:<plaintext>:plaintext", "raw:a</plaintext><b>", "eof"}));
}

TEST(HtmlTokenizer, ScriptEscapedAndDoubleEscapedStates) {
  // In "<!--", a "<script" starts a region where "</script>" does not end
  // the element; "-->" leaves it.
  EXPECT_EQ(Tokens("<script><!--<script>x</script>y--></script>z"),
            (V{"start:<script>:script", "raw:<!--<script>x</script>y-->",
               "end:</script>:script", "text:z", "eof"}));
  // Escaped but not double-escaped: the first </script> ends it.
  EXPECT_EQ(Tokens("<script><!-- a </script>b"),
            (V{"start:<script>:script", "raw:<!-- a ", "end:</script>:script",
               "text:b", "eof"}));
  // "<!-->" is both the start and the end of the escape.
  EXPECT_EQ(Tokens("<script><!--><script></script>"),
            (V{"start:<script>:script", "raw:<!--><script>",
               "end:</script>:script", "eof"}));
}

TEST(HtmlTokenizer, RawTextOnlyForTheRawTextElements) {
  EXPECT_TRUE(IsRawTextElement("script"));
  EXPECT_TRUE(IsRawTextElement("plaintext"));
  EXPECT_FALSE(IsRawTextElement("noscript"));  // read as markup: see Prepare
  EXPECT_FALSE(IsRawTextElement("SCRIPT"));    // names come lower-cased
  // An end tag of a raw-text element does not start raw text.
  EXPECT_EQ(Tokens("</style><b>"),
            (V{"end:</style>:style", "start:<b>:b", "eof"}));
}

TEST(HtmlTokenizer, NulAndInvalidBytesAreText) {
  const std::string in("a\0b\xFF<\0>", 7);
  Tokenizer t(in);
  EXPECT_EQ(t.Next().kind, TokenKind::kText);
  EXPECT_EQ(t.Next().kind, TokenKind::kLessThan);
  Token rest = t.Next();
  EXPECT_EQ(rest.kind, TokenKind::kText);
  EXPECT_EQ(rest.end, in.size());
}

}  // namespace
}  // namespace mw::mime::internal
