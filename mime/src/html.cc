// HTML to the text a reader sees (see html.h for the contract).
//
// Why gumbo: Debian's libgumbo is a real HTML5 tree builder. It applies the
// same error recovery as browsers (unclosed and misnested tags, stray end tags,
// <p> inside <p>, foster-parented table content), and spam relies on exactly
// those rules to show one thing to a reader and another to a naive tag
// stripper. It is pure C with no I/O, no network and no global state, and
// small. libxml2's HTML parser is an HTML4-era parser with its own, different
// recovery, so its tree can disagree with what a mail client displays.
//
// Gumbo has no limits of its own, and three of its costs are quadratic on
// hostile input: every start tag scans the stack of open elements (100000
// nested <div>s take about 14 s), every attribute is compared with the earlier
// ones of its tag, and reopening formatting elements can create a node per
// open formatting element per paragraph (a few KB of input, GBs of nodes).
// gumbo_destroy_output also recurses once per tree level. So:
//
// The work is split in units, each a private file pair under mime/src with its
// own tests under tests/mime:
//   html_chars     ASCII and UTF-8 helpers shared by the others
//   css            the declarations and simple <style> rules that hide text
//   html_tokenizer our copy of the HTML5 tokenizer's token boundaries
//   depth_estimate a model of the depth of gumbo's stack of open elements
//   html_prepare   re-emits the document for gumbo with the guards below
//   gumbo_arena    gumbo's allocator, with the memory and CPU budgets
//   html_entities  character references decoded as gumbo decodes them
//   html_attributes a start tag's attributes read as gumbo reads them
//   html_doctype   a doctype's quirks mode as gumbo computes it
//   html_stream    a one-pass tree builder for the documents that need no
//                  more of HTML5's error recovery than it models (step 2b)
//   text_builder   whitespace, line and paragraph rules of the output
//   html_walker    the walk over gumbo's tree: what shows, and the layout
// This file holds the limits and the retry loop that ties them together.
//
// 1. Inputs over kMaxInputBytes are cut (at a UTF-8 boundary) first.
//
// 2. Prepare (html_prepare.cc), on Tokenizer (html_tokenizer.cc), our own
// copy of the HTML5 tokenizer's data, tag, comment and script states,
// re-emits the document for gumbo. Comments are dropped (never
// visible); raw-text content (script, style, textarea, ...) is escaped so
// gumbo cannot see markup in it; a tag keeps at most kMaxAttributes
// attributes, and only the first of each name (gumbo's tokenizer would run a
// name after a repeated one into it); and DepthEstimate, a conservative model
// of gumbo's stack of open elements, drops start tags that would nest deeper
// than the nesting limit plus kDepthSlack (at most kMaxTreeDepth)
// (depth_estimate.cc). Since gumbo tokenizes exactly the tokens we emit,
// tokenizer tricks cannot fool the estimate, and its rules err towards counting
// too much. A work counter (sum of the estimated depth over all tags) stops
// passing tags on past kMaxTagWork; text still flows.
//
// 2b. When nothing was cut, StreamText (html_stream.cc) reads the prepared
// document in one pass with a stack of open elements and gumbo's rules for
// what most mail needs (implied ends, tables, lists, formatting elements
// reopened and adopted, select, quirks mode, gumbo's text buffer) and feeds
// the Walker as it goes, with no tree; its text is the one the Walker writes
// from gumbo's tree of the same document (tests/mime/html_stream_test.cc on
// every HTML part of the dev corpus, generated tag soup and
// fuzz/html_stream_fuzz.cc). Where the document needs more (foster
// parenting, a furthest block that changes styles, templates, foreign
// content, ...), it says so and gumbo parses it: 59 of the 834 HTML parts of
// the dev corpus. About three times gumbo's speed (docs/mime.md).
//
// 3. Gumbo allocates from an Arena (gumbo_arena.cc) that tracks every block, so
// the tree is freed without recursion (gumbo_destroy_output is never called).
// Past the memory budget or kMaxParseCpuSeconds of thread CPU time, the
// allocator longjmps out of gumbo (only C frames lie between, nothing to
// unwind), everything is freed, and the parse is retried in a cheaper Mode:
// without formatting elements, then with a small depth cap, then text only. The
// time limit is the backstop for tree-builder tricks the estimate does not
// model (a random tag-soup search found several, since fixed); real mail never
// comes near it.
//
// 4. The tree walk (html_walker.cc) uses an explicit stack and skips elements
// deeper than the nesting limit.
//
// What is dropped: head, title, script, style, template, iframe, noembed,
// noframes, datalist, comments (conditional comments such as <!--[if mso]>
// included), and hidden elements with all their descendants: the `hidden`
// attribute; display:none; opacity below 0.05; a zero width, height or
// max-height together with overflow:hidden; off-screen boxes (positioned at a
// left or top of -1000px or less, or a text-indent of -1000px or less). Text is
// also not shown under visibility:hidden/collapse, color:transparent or a font
// size below 1px, but as in CSS those are inherited and a descendant can
// restore them (visibility:visible, font-size:14px): email templates routinely
// set font-size:0 on a container and a real size on its children. Text whose
// colour is within 20 per channel of its backdrop's is not shown either: the
// backdrop is the nearest painted background (bgcolor, background-color,
// background), white by default, and unknown under a background image or
// gradient or a colour we cannot parse, where nothing is hidden; the text
// colour comes from color, <font color> and <body text>, black by default.
// Declarations come from the style attribute and from <style> sheets, for rules
// whose selectors are a single tag, a single class or tag.class (conditional
// @media rules are ignored). What is kept: noscript content (mail clients do
// not run scripts, so they show it; gumbo parses it as script-enabled raw text,
// so Prepare renames it to an unknown inline element), svg and MathML text,
// anchor text (hrefs are not appended: fingerprints must not see per-recipient
// tracking URLs), and img alt text (shown when images are blocked, the default
// of many clients). Not treated as hidden: aria-hidden (screen readers only;
// the text is on screen), mso-hide:all (hidden in Outlook only), <font size=0>
// (browsers clamp it to size 1), and box-shadow, clip-path or z-index tricks.
//
// Layout: block elements (p, div, li, table, h1-h6, ...) are paragraphs
// separated by exactly one blank line; <br> ends a line (two in a row make a
// blank line); table rows are lines and cells are separated by one space.
// Whitespace collapses as in a browser, except inside pre, listing, xmp,
// plaintext and textarea where spaces and line breaks are kept (trailing spaces
// are still trimmed). There are no leading or trailing blank lines and never
// two blank lines in a row. &nbsp; becomes an ordinary space. Gumbo decodes
// entities and replaces invalid UTF-8 with U+FFFD; the result is checked again
// anyway.
#include "html.h"

#include <gumbo.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "gumbo_arena.h"
#include "html_chars.h"
#include "html_prepare.h"
#include "html_stream.h"
#include "html_walker.h"

namespace mw::mime {
namespace {

using internal::Arena;
using internal::Mode;
using internal::Prepared;
using internal::Utf8Boundary;

// Larger HTML parts are cut. Gumbo parses real mail at about 9 MB/s but markup
// that is all tags at 1.2-2 MB/s, so this bounds one parse to about a second
// and a half. Real HTML parts are far smaller (the largest in the development
// corpus is 82 KB).
constexpr std::size_t kMaxInputBytes = 2u << 20;
// Hard ceiling on the element depth gumbo ever sees, whatever nesting limit is
// asked for.
constexpr std::uint32_t kMaxTreeDepth = 1024;
// Extra estimated depth allowed over the nesting limit, so that elements just
// past the limit still reach the tree (and set nesting_limit_hit there) while
// their siblings keep their place.
constexpr std::uint32_t kDepthSlack = 16;
// Memory gumbo may allocate: a base plus a multiple of the input. Real mail
// needs at most 13x, markup that is all tags ("<p><p>...") about 43x.
constexpr std::size_t kArenaBase = 32u << 20;
constexpr std::size_t kArenaPerInputByte = 48;
// Thread CPU time one gumbo parse may take. Real mail parses at 9-17 MB/s and
// 2 MiB of nothing but tags in about a second; past this the depth estimate
// was fooled, and the parse is abandoned and retried in a cheaper Mode.
constexpr double kMaxParseCpuSeconds = 1.0;
constexpr int kMaxParseAttempts = 6;

}  // namespace

HtmlText HtmlToText(std::string_view html, std::uint32_t nesting_limit,
                    const Budget& budget, TreeBuilder builder) {
  HtmlText result;
  if (html.size() > kMaxInputBytes) {
    html = html.substr(0, Utf8Boundary(html, kMaxInputBytes));
    result.input_truncated = true;
  }
  std::uint32_t depth_cap =
      std::min(nesting_limit, kMaxTreeDepth) + kDepthSlack;
  Mode mode = Mode::kFull;
  for (int attempt = 0; attempt < kMaxParseAttempts; ++attempt) {
    Prepared prepared = internal::Prepare(html, depth_cap, mode);
    result.nesting_limit_hit |= prepared.depth_cut;
    result.input_truncated |= prepared.work_cut;
    // Each attempt gets no more CPU time than the message has left, so the
    // retries cannot add up past the message's budget.
    const std::chrono::nanoseconds cpu_now = Budget::ThreadCpuNow();
    const double left =
        std::chrono::duration<double>(budget.CpuLeftAt(cpu_now)).count();
    if (left <= 0) break;
    if (builder == TreeBuilder::kStreamFirst && mode == Mode::kFull &&
        !prepared.depth_cut && !prepared.work_cut) {
      if (std::optional<std::string> text = internal::StreamText(
              prepared.html, prepared.styles, nesting_limit)) {
        result.text = internal::ValidUtf8(std::move(*text));
        return result;
      }
    }
    Arena arena(kArenaBase + kArenaPerInputByte * prepared.html.size(),
                std::min(kMaxParseCpuSeconds, left));
    GumboOutput* output = arena.Parse(prepared.html, cpu_now);
    if (output == nullptr) {
      // Over the memory or time budget: retry in a cheaper mode, and once
      // text-only fails too (it should not), on half the input.
      result.input_truncated = true;
      if (mode == Mode::kTextOnly) {
        html = html.substr(0, Utf8Boundary(html, html.size() / 2));
      } else if (arena.timed_out() && mode < Mode::kShallow) {
        mode = Mode::kShallow;  // dropping formatting saves memory, not time
      } else {
        mode = static_cast<Mode>(static_cast<int>(mode) + 1);
      }
      continue;
    }
    internal::Walker walker(prepared.styles, nesting_limit);
    result.text = internal::ValidUtf8(walker.Walk(output->document));
    result.nesting_limit_hit |= walker.nesting_limit_hit();
    return result;
  }
  result.input_truncated = true;
  return result;
}

}  // namespace mw::mime
