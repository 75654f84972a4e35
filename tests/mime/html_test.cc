// Tests for mime/src/html.cc: HTML to the text a reader sees.
#include "mime/src/html.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace mw::mime {
namespace {

constexpr std::uint32_t kLimit = 512;

std::string Text(std::string_view html, std::uint32_t limit = kLimit) {
  return HtmlToText(html, limit).text;
}

std::string Repeat(std::string_view s, int n) {
  std::string out;
  out.reserve(s.size() * static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

bool IsValidUtf8(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    auto c = static_cast<unsigned char>(s[i]);
    std::size_t n = c < 0x80         ? 1
                    : (c >> 5) == 6  ? 2
                    : (c >> 4) == 14 ? 3
                    : (c >> 3) == 30 ? 4
                                     : 0;
    if (n == 0 || (n == 2 && c < 0xC2) || i + n > s.size()) return false;
    for (std::size_t k = 1; k < n; ++k) {
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    }
    i += n;
  }
  return true;
}

// --- Entities
// ---------------------------------------------------------------------------------

TEST(HtmlToText, DecodesNamedNumericAndHexEntities) {
  EXPECT_EQ(Text("<p>Fish &amp; chips &lt;3 &quot;caf&eacute;&quot; "
                 "&#65;&#x42;&#X43; &euro;</p>"),
            "Fish & chips <3 \"caf\xC3\xA9\" ABC \xE2\x82\xAC");
}

TEST(HtmlToText, NbspBecomesAnOrdinarySpace) {
  EXPECT_EQ(Text("a&nbsp;b &nbsp;&nbsp; c&#160;d"), "a b c d");
}

TEST(HtmlToText, EntitiesInAttributesAreDecoded) {
  EXPECT_EQ(Text("<img alt=\"Tom &amp; Jerry\">"), "Tom & Jerry");
}

// --- What is dropped
// --------------------------------------------------------------------------

TEST(HtmlToText, DropsComments) {
  EXPECT_EQ(Text("a<!-- hidden -->b c <!-- x --> d<!---->e<!-- a -- b --!>f"),
            "ab c def");
}

TEST(HtmlToText, DropsConditionalCommentsButKeepsDownlevelRevealedContent) {
  EXPECT_EQ(Text("<!--[if mso]><p>outlook only</p><![endif]-->"
                 "<!--[if !mso]><!--><p>everyone</p><!--<![endif]-->"),
            "everyone");
}

TEST(HtmlToText, DropsScriptStyleHeadAndTitle) {
  EXPECT_EQ(
      Text("<html><head><title>Title</title><meta charset=utf-8>"
           "<style>p { color: red }</style><script>var x = "
           "'<p>no</p>';</script></head>"
           "<body><script>document.write('</div>')</script><p>body</p>"
           "<style>.a{}</style><template><p>tpl</p></template></body></html>"),
      "body");
}

TEST(HtmlToText, ScriptEndsWhereTheTokenizerEndsIt) {
  // Inside "<!--", a "<script>" starts a region where "</script>" does not end
  // the element.
  EXPECT_EQ(Text("<script><!--<script></script>still script--></script>after"),
            "after");
  EXPECT_EQ(Text("<script>if (a < b) x = '</scriptx>';</script>after"),
            "after");
}

// --- Hidden text (each with a visible control)
// ---------------------------------------------

TEST(HtmlToText, HiddenAttributeHidesSubtree) {
  EXPECT_EQ(Text("<p>shown</p><p hidden>secret <b>bold</b></p><p "
                 "HIDDEN=until-found>x</p>"),
            "shown");
}

TEST(HtmlToText, DisplayNoneHidesSubtree) {
  EXPECT_EQ(Text("<p>shown</p><div style=\"display:none\">a</div>"
                 "<span style=\" DISPLAY : None !important ;\">b</span>"
                 "<span style=\"color:red;display:/* x */none\">c</span>"
                 "<span style=\"display:none;display:inline\">visible</span>"),
            "shown\n\nvisible");
}

TEST(HtmlToText, VisibilityHiddenIsInheritedAndCanBeRestored) {
  EXPECT_EQ(Text("<p>shown</p><p style=\"visibility: hidden\">a "
                 "<span style=\"visibility:visible\">restored</span> b</p>"
                 "<p style=\"visibility:collapse\">c</p>"),
            "shown\n\nrestored");
}

TEST(HtmlToText, ZeroFontSizeHidesTextUntilAnAbsoluteSizeRestoresIt) {
  EXPECT_EQ(
      Text("<p>shown</p>"
           "<p style=\"font-size:0\">a</p><p style=\"font-size:0px\">b</p>"
           "<p style=\"font-size:0pt\">c</p><p style=\"font-size:0em\">d</p>"
           "<p style=\"font-size:0%\">e</p><p style=\"font-size:0.1px\">f</p>"
           "<p style=\"FONT-SIZE: 0 !important\">g</p><p "
           "style=\"font-size:1px\">tiny</p>"
           "<div style=\"font-size:0\">h <span "
           "style=\"font-size:14px\">restored</span>"
           " <span style=\"font-size:2em\">relative-to-zero</span></div>"),
      "shown\n\ntiny\n\nrestored");
}

TEST(HtmlToText, ZeroOpacityHidesSubtree) {
  EXPECT_EQ(
      Text("<p>shown</p><p style=\"opacity:0\">a</p><p style=\"opacity: "
           "0.0\">b</p>"
           "<p style=\"opacity:0.01\">c</p><p style=\"opacity:0.5\">half</p>"),
      "shown\n\nhalf");
}

TEST(HtmlToText, ZeroSizeHidesOnlyWithOverflowHidden) {
  EXPECT_EQ(Text("<div style=\"max-height:0;overflow:hidden\">a</div>"
                 "<div style=\"height:0px; overflow: hidden\">b</div>"
                 "<div style=\"width:0;overflow-x:hidden\">c</div>"
                 "<div style=\"height:0\">overflows</div>"
                 "<div style=\"overflow:hidden\">clipped-but-sized</div>"),
            "overflows\n\nclipped-but-sized");
}

TEST(HtmlToText, TransparentColourHidesText) {
  EXPECT_EQ(Text("<p style=\"color:transparent\">a <b "
                 "style=\"color:#000\">restored</b></p>"
                 "<p style=\"color: red\">red</p>"),
            "restored\n\nred");
}

TEST(HtmlToText, TextColouredLikeItsBackdropIsHidden) {
  // White, or nearly white, on the default white page.
  EXPECT_EQ(Text("<p>seen <span style=\"color:#fff\">a</span> "
                 "<font color=\"#FAFAFA\">b</font> <font color=white>c</font>"
                 " <span style=\"color:rgb(250, 250, 250)\">d</span></p>"),
            "seen");
  // Same colour on a painted box, by attribute and by style, and a style
  // sheet rule.
  EXPECT_EQ(Text("<style>.k{color:#000}</style>"
                 "<table bgcolor=\"#000000\"><tr><td><font "
                 "color=\"000000\">a</font><span class=k>b</span> "
                 "<font color=\"#fff\">light</font></td></tr></table>"
                 "<div style=\"background:#123456 ; color:#123457\">c</div>"),
            "light");
}

TEST(HtmlToText, TextOnAContrastingOrUnknownBackdropStays) {
  // White on black, light grey that is still readable, red on green, white
  // over a background image or gradient (the image's colours are unknown), and
  // a descendant that paints its own backdrop.
  EXPECT_EQ(
      Text("<body bgcolor=black text=white><p>a</p>"
           "<div style=\"background-color:#fff\"><p style=\"color:#ccc\">b</p>"
           "<p style=\"color:#f00;background:#0f0\">c</p>"
           "<p style=\"color:#fff;background:url(x.png) #fff\">d</p>"
           "<table background=\"x.jpg\"><tr><td><font color=white>e</font>"
           "</td></tr></table>"
           "<p style=\"color:white;background-image:linear-gradient(red,"
           "blue)\">f</p>"
           "<p style=\"color:#fff\"><span style=\"background:#333\">g</span>"
           "</p><p style=\"color:var(--c)\">h</p></div></body>"),
      "a\n\nb\n\nc\n\nd\n\ne\n\nf\n\ng\n\nh");
}

TEST(HtmlToText, OffScreenTextIsHidden) {
  EXPECT_EQ(
      Text("<div style=\"position:absolute;left:-9999px\">a</div>"
           "<div style=\"position:fixed; top:-2000px\">b</div>"
           "<p style=\"text-indent:-5000px\">c</p>"
           "<div style=\"left:-9999px\">static</div>"
           "<div style=\"position:absolute;left:-20px\">near</div>"
           "<div style=\"position:absolute;left:-9999px;left:0\">back</div>"),
      "static\n\nnear\n\nback");
}

TEST(HtmlToText, AriaHiddenFontSizeZeroAttributeAndMsoHideAreStillVisible) {
  // aria-hidden only hides from screen readers; <font size=0> is clamped to
  // size 1 by browsers; mso-hide:all hides in Outlook only.
  EXPECT_EQ(
      Text("<span aria-hidden=\"true\">a</span> <font size=\"0\">b</font> "
           "<span style=\"mso-hide:all\">c</span>"),
      "a b c");
}

TEST(HtmlToText, StyleSheetRulesWithSimpleSelectorsHide) {
  EXPECT_EQ(
      Text("<style>/* c */ .x { display: none } span.y, .z{font-size:0px}\n"
           "em { visibility: hidden } @media (max-width: 600px) { .m { "
           "display:none } }\n"
           "div .d { display:none }</style>"
           "<p class=\"a X\">class</p><p><span class=y>tag-class</span> "
           "<b class=\"z\">class2</b> <em>tag</em> <i class=y>other-tag</i></p>"
           "<p class=m>media</p><div><p class=d>descendant</p></div>"),
      "other-tag\n\nmedia\n\ndescendant");
}

TEST(HtmlToText, StyleSheetAfterTheElementStillApplies) {
  EXPECT_EQ(
      Text("<p "
           "class=late>late</p><p>shown</p><style>.late{display:none}</style>"),
      "shown");
}

// --- Layout
// -----------------------------------------------------------------------------------

TEST(HtmlToText, BlocksAreParagraphsSeparatedByOneBlankLine) {
  EXPECT_EQ(Text("<div><div><h1>Title</h1></div></div><p>one</p><div></"
                 "div><div> </div>"
                 "<blockquote>two</blockquote>text<section><article>three</"
                 "article></section>"
                 "<hr><center>four</center>"),
            "Title\n\none\n\ntwo\n\ntext\n\nthree\n\nfour");
}

TEST(HtmlToText, BrEndsALineAndRunsMakeAtMostOneBlankLine) {
  EXPECT_EQ(Text("<br><br>a<br>b<br><br>c<br><br><br><br>d<br>"),
            "a\nb\n\nc\n\nd");
}

TEST(HtmlToText, ListItemsAreParagraphs) {
  EXPECT_EQ(Text("<ul><li>one</li><li>two<ol><li>nested</li></ol></li></ul>"
                 "<dl><dt>term</dt><dd>definition</dd></dl>"),
            "one\n\ntwo\n\nnested\n\nterm\n\ndefinition");
}

TEST(HtmlToText, TableRowsAreLinesAndCellsAreSpaced) {
  EXPECT_EQ(Text("<table><tr><th>Name</th><th>Price</th></tr>"
                 "<tr><td> Pills </td><td></td><td>$9</td></tr>"
                 "<tr><td><p>para</p></td><td>next</td></tr></table>after"),
            "Name Price\nPills $9\n\npara\n\nnext\n\nafter");
}

TEST(HtmlToText, CollapsesWhitespaceAndTrimsLines) {
  EXPECT_EQ(
      Text("  \n<p>\t a  \n\n b </p>  <b>c</b> <i>d</i>e<span> </span>f\n "),
      "a b\n\nc de f");
}

TEST(HtmlToText, PreKeepsWhitespace) {
  EXPECT_EQ(Text("<p>x</p><pre>\n  indented   text  \n\tcol\n\n\n\n"
                 "end&nbsp;&nbsp;.</pre><p>y</p>"),
            "x\n\n  indented   text\n\tcol\n\nend  .\n\ny");
}

TEST(HtmlToText, TextareaAndXmpShowTheirMarkupAsText) {
  EXPECT_EQ(Text("<textarea>a <b>  b</b> &amp;</textarea><xmp><i>c</i></xmp>"),
            "a <b>  b</b> &\n\n<i>c</i>");
}

TEST(HtmlToText, KeepsAnchorTextWithoutHrefs) {
  EXPECT_EQ(
      Text("Visit <a href=\"http://track.example/?id=123\">our site</a> today"),
      "Visit our site today");
}

TEST(HtmlToText, KeepsImageAltText) {
  EXPECT_EQ(Text("Buy<img src=x.gif alt=\" Cheap Pills \">now <img src=y.gif>"
                 "<div hidden><img alt=hidden></div>"),
            "Buy Cheap Pills now");
}

TEST(HtmlToText, KeepsNoscriptContent) {
  EXPECT_EQ(Text("<head><noscript><style>a{}</style></noscript></head>"
                 "<noscript><p>Enable <b>images</b> &amp; more</p></noscript>"),
            "Enable images & more");
}

TEST(HtmlToText, KeepsSvgAndMathText) {
  EXPECT_EQ(Text("<svg><style>.s{}</style><text>Logo</text></svg> "
                 "<math><mi>x</mi></math>"),
            "Logo x");
}

TEST(HtmlToText, QuotedGreaterThanDoesNotEndATag) {
  EXPECT_EQ(Text("<img alt=\"a > b\" title='>'>c<p x=\"<p>\">d</p>"),
            "a > bc\n\nd");
}

// --- Broken HTML, recovered as a browser does
// ------------------------------------------------

TEST(HtmlToText, UnclosedTagsAndParagraphInsideParagraph) {
  EXPECT_EQ(Text("<p>one<p>two<div>three<p>four<p><p>five"),
            "one\n\ntwo\n\nthree\n\nfour\n\nfive");
}

TEST(HtmlToText, StrayAndMisnestedEndTags) {
  EXPECT_EQ(Text("</div></p>a</span><b>b<i>c</b>d</i></td></table>e"), "abcde");
}

TEST(HtmlToText, TagCutByEndOfInputIsDropped) {
  EXPECT_EQ(Text("text <div class=\"x"), "text");
  EXPECT_EQ(Text("text <"), "text <");
}

TEST(HtmlToText, ARepeatedAttributeNameHidesNoOtherAttribute) {
  // gumbo with max_errors = 0, as gumbo_arena runs it, read "lang" and
  // "langstyle" before Prepare kept only the first of each name.
  EXPECT_EQ(Text("<span lang lang style=\"display:none\">secret</span> shown"),
            "shown");
  EXPECT_EQ(Text("<font color=white color=black x>white on white</font>b"),
            "b");
}

TEST(HtmlToText, TextInsideTableIsFosterParented) {
  EXPECT_EQ(Text("<table>loose<tr><td>cell</td></tr></table>"),
            "loose\n\ncell");
}

// --- Limits and hostile input
// -----------------------------------------------------------------

TEST(HtmlToText, ElementsDeeperThanTheLimitAreSkipped) {
  // html is depth 1 and body 2, so the first div is 3.
  const std::string html =
      "<div>3<div>4<div>5<div>6<div>7</div></div>5b</div></div></div>";
  HtmlText deep = HtmlToText(html, 5);
  EXPECT_EQ(deep.text, "3\n\n4\n\n5\n\n5b");
  EXPECT_TRUE(deep.nesting_limit_hit);
  HtmlText all = HtmlToText(html, 7);
  EXPECT_EQ(all.text, "3\n\n4\n\n5\n\n6\n\n7\n\n5b");
  EXPECT_FALSE(all.nesting_limit_hit);
}

TEST(HtmlToText, HundredThousandNestedDivsDoNotCrash) {
  const std::string html = "top" + Repeat("<div>", 100000) + "deep" +
                           Repeat("</div>", 100000) + "<p>after</p>";
  HtmlText r = HtmlToText(html, kLimit);
  EXPECT_TRUE(r.nesting_limit_hit);
  EXPECT_EQ(r.text, "top\n\nafter");
}

TEST(HtmlToText, NestingLimitCannotBeDefeatedByTreeBuilderTricks) {
  // Each pattern makes the tree deeper while naive tag counting stays flat.
  for (std::string_view unit :
       {"<span><div></span>", "<b><div></b>", "<form><div></form>",
        "<b><table></b></table>", "<div><i c=1></div>x",
        "<svg><script><span><div></span></script>"}) {
    HtmlText r = HtmlToText(Repeat(unit, 20000) + "<p>end", kLimit);
    EXPECT_TRUE(r.nesting_limit_hit) << unit;
    EXPECT_TRUE(IsValidUtf8(r.text)) << unit;
  }
}

TEST(HtmlToText, RawTextThatHidesMarkupFromTheDepthEstimateIsEscaped) {
  // Without escaping, gumbo would see these divs as markup after the style or
  // iframe ends.
  for (std::string_view prefix :
       {"<style><!--</style>", "<select><iframe></select>"}) {
    HtmlText r =
        HtmlToText(std::string(prefix) + Repeat("<div>", 50000) + "x", kLimit);
    EXPECT_TRUE(IsValidUtf8(r.text)) << prefix;
  }
}

TEST(HtmlToText, ThousandsOfAttributesAreCut) {
  std::string html = "<img";
  for (int i = 0; i < 50000; ++i) html += " a" + std::to_string(i);
  html += " alt=late>text";
  EXPECT_EQ(Text(html), "text");
}

TEST(HtmlToText, ReopenedFormattingElementsStayWithinTheMemoryBudget) {
  // Every <p> reopens all 1000 distinct <font>s: millions of nodes from 150 KB.
  std::string html = "<p>";
  for (int i = 0; i < 1000; ++i) html += "<font c=" + std::to_string(i) + ">";
  html += Repeat("<p>y", 30000);
  HtmlText r = HtmlToText(html, kLimit);
  EXPECT_TRUE(r.input_truncated);
  EXPECT_TRUE(r.text.starts_with("y\n\ny")) << r.text.substr(0, 20);
}

TEST(HtmlToText, OneMegabyteOfText) {
  const std::string html = "<p>" + Repeat("word  ", 200000) + "</p>";
  HtmlText r = HtmlToText(html, kLimit);
  EXPECT_EQ(r.text.size(), 200000u * 5 - 1);
  EXPECT_TRUE(r.text.starts_with("word word "));
  EXPECT_TRUE(r.text.ends_with(" word"));
  EXPECT_FALSE(r.input_truncated);
}

TEST(HtmlToText, InputOverTwoMebibytesIsCut) {
  std::string html = "<p>" + std::string((2u << 20) + 100, 'x');
  HtmlText r = HtmlToText(html, kLimit);
  EXPECT_TRUE(r.input_truncated);
  EXPECT_EQ(r.text.size(), (2u << 20) - 3);
}

TEST(HtmlToText, EmptyAndBlankInput) {
  HtmlText r = HtmlToText("", kLimit);
  EXPECT_EQ(r.text, "");
  EXPECT_FALSE(r.nesting_limit_hit);
  EXPECT_FALSE(r.input_truncated);
  EXPECT_EQ(Text(" \n\t<html><body> <p> </p> </body></html>\n"), "");
}

TEST(HtmlToText, InvalidUtf8AndNulBytesGiveValidUtf8) {
  std::string html =
      "<p>a\xFF"
      "b\xC3(c\xE2\x82";
  html += '\0';
  html += "d\xED\xA0\x80</p>";
  std::string text = Text(html);
  EXPECT_TRUE(IsValidUtf8(text));
  EXPECT_EQ(text.substr(0, 5),
            "a\xEF\xBF\xBD"
            "b");
}

// --- Real mail
// ---------------------------------------------------------------------------------

TEST(HtmlToText, SpamNewsletterTableFragment) {
  // From ../shared/data/mail/sa_spam/00470 (2002 hosting reseller spam), cut
  // down; image URLs removed. It has upper-case tags, &nbsp; padding, an <IMG>
  // without alt and a stray <font> between cells, which the tree builder
  // foster-parents out of the table.
  const std::string html =
      "<CENTER><TABLE cellSpacing=0 cellPadding=0 width=540 "
      "border=0><TBODY><TR><TD "
      "style=\"FONT-SIZE: 12px; COLOR: black\"><IMG src=\"head.gif\" border=0 "
      "width=540 "
      "height=221></TD></TR><TR><TD class=text align=left width=495><P "
      "align=center><FONT "
      "size=3> <SPAN style=\"FONT-WEIGHT: 700; FONT-FAMILY: Arial\">Private "
      "Label\r\nReseller "
      "Hosting Plans</SPAN></FONT></P><TABLE id=AutoNumber2 "
      "border=1><TBODY><TR><TD width=113 "
      "bgColor=#e7b659 height=14>&nbsp;</TD><TD align=middle><font "
      "size=1><b>Starter "
      "Plan</b></font></TD><TD align=middle><font "
      "size=1><b>Midsize\r\nPlan</b></font></TD>"
      "</TR><TR><TD align=right><B><FONT size=1>Price&nbsp;&nbsp; "
      "</FONT></B></TD><TD "
      "align=middle><FONT size=1 face=Arial>99.95/mo.</FONT></TD><font "
      "face=Arial><TD "
      "align=middle><font "
      "size=1>259.95/mo.</font></TD></TR></TBODY></TABLE></TD></TR>"
      "</TBODY></TABLE></CENTER>";
  EXPECT_EQ(
      Text(html),
      "Private Label Reseller Hosting Plans\n\nStarter Plan Midsize Plan\n"
      "Price 99.95/mo. 259.95/mo.");
}

}  // namespace
}  // namespace mw::mime
