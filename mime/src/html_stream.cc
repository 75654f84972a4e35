// The stream tree builder (see html_stream.h). Each rule follows gumbo 0.10's
// src/parser.c, named in the comments; what this file does not model makes
// StreamText return nullopt ("gives up"), and html.cc asks gumbo.
//
// The model: a stack of open elements (html is the first; the document node
// is not on it), each with the state the Walker computed for it, the list of
// active formatting elements with its markers, and gumbo's text buffer, as
// gumbo keeps them. The insertion mode is not tracked but read off the stack,
// as gumbo's reset_insertion_mode_appropriately does: the innermost of td/th
// (in cell), tr (in row), tbody/thead/tfoot (in table body), table (in
// table), select (in select, or in select in table inside a table), else in
// body. Since every token that would be foster-parented gives up, in the
// three table modes that element is always the current node, and the modes
// gumbo would set agree with the stack at every token.
//
// Before <body>: whitespace is dropped and head content produces no text
// wherever it lands (base, link, meta, title, style, script, noframes), so
// <head> and </head> are no-ops; the first other token opens <body>, as
// gumbo's "anything else" in the head modes does. The Walker is called for
// html and body as for any element (their attributes can colour the page).
#include "html_stream.h"

#include <gumbo.h>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "html_attributes.h"
#include "html_chars.h"
#include "html_doctype.h"
#include "html_entities.h"
#include "html_tokenizer.h"
#include "html_walker.h"

namespace mw::mime::internal {
namespace {

bool TagIn(GumboTag tag, std::initializer_list<GumboTag> set) {
  for (GumboTag t : set) {
    if (t == tag) return true;
  }
  return false;
}

// gumbo's is_special_node, HTML namespace.
bool IsSpecial(GumboTag t) {
  switch (t) {
    case GUMBO_TAG_ADDRESS:
    case GUMBO_TAG_APPLET:
    case GUMBO_TAG_AREA:
    case GUMBO_TAG_ARTICLE:
    case GUMBO_TAG_ASIDE:
    case GUMBO_TAG_BASE:
    case GUMBO_TAG_BASEFONT:
    case GUMBO_TAG_BGSOUND:
    case GUMBO_TAG_BLOCKQUOTE:
    case GUMBO_TAG_BODY:
    case GUMBO_TAG_BR:
    case GUMBO_TAG_BUTTON:
    case GUMBO_TAG_CAPTION:
    case GUMBO_TAG_CENTER:
    case GUMBO_TAG_COL:
    case GUMBO_TAG_COLGROUP:
    case GUMBO_TAG_MENUITEM:
    case GUMBO_TAG_DD:
    case GUMBO_TAG_DETAILS:
    case GUMBO_TAG_DIR:
    case GUMBO_TAG_DIV:
    case GUMBO_TAG_DL:
    case GUMBO_TAG_DT:
    case GUMBO_TAG_EMBED:
    case GUMBO_TAG_FIELDSET:
    case GUMBO_TAG_FIGCAPTION:
    case GUMBO_TAG_FIGURE:
    case GUMBO_TAG_FOOTER:
    case GUMBO_TAG_FORM:
    case GUMBO_TAG_FRAME:
    case GUMBO_TAG_FRAMESET:
    case GUMBO_TAG_H1:
    case GUMBO_TAG_H2:
    case GUMBO_TAG_H3:
    case GUMBO_TAG_H4:
    case GUMBO_TAG_H5:
    case GUMBO_TAG_H6:
    case GUMBO_TAG_HEAD:
    case GUMBO_TAG_HEADER:
    case GUMBO_TAG_HGROUP:
    case GUMBO_TAG_HR:
    case GUMBO_TAG_HTML:
    case GUMBO_TAG_IFRAME:
    case GUMBO_TAG_IMG:
    case GUMBO_TAG_INPUT:
    case GUMBO_TAG_ISINDEX:
    case GUMBO_TAG_LI:
    case GUMBO_TAG_LINK:
    case GUMBO_TAG_LISTING:
    case GUMBO_TAG_MARQUEE:
    case GUMBO_TAG_MENU:
    case GUMBO_TAG_META:
    case GUMBO_TAG_NAV:
    case GUMBO_TAG_NOEMBED:
    case GUMBO_TAG_NOFRAMES:
    case GUMBO_TAG_NOSCRIPT:
    case GUMBO_TAG_OBJECT:
    case GUMBO_TAG_OL:
    case GUMBO_TAG_P:
    case GUMBO_TAG_PARAM:
    case GUMBO_TAG_PLAINTEXT:
    case GUMBO_TAG_PRE:
    case GUMBO_TAG_SCRIPT:
    case GUMBO_TAG_SECTION:
    case GUMBO_TAG_SELECT:
    case GUMBO_TAG_STYLE:
    case GUMBO_TAG_SUMMARY:
    case GUMBO_TAG_TABLE:
    case GUMBO_TAG_TBODY:
    case GUMBO_TAG_TD:
    case GUMBO_TAG_TEMPLATE:
    case GUMBO_TAG_TEXTAREA:
    case GUMBO_TAG_TFOOT:
    case GUMBO_TAG_TH:
    case GUMBO_TAG_THEAD:
    case GUMBO_TAG_TITLE:
    case GUMBO_TAG_TR:
    case GUMBO_TAG_UL:
    case GUMBO_TAG_WBR:
    case GUMBO_TAG_XMP:
      return true;
    default:
      return false;
  }
}

bool IsHeading(GumboTag t) {
  return TagIn(t, {GUMBO_TAG_H1, GUMBO_TAG_H2, GUMBO_TAG_H3, GUMBO_TAG_H4,
                   GUMBO_TAG_H5, GUMBO_TAG_H6});
}

bool IsFormatting(GumboTag t) {
  return TagIn(t, {GUMBO_TAG_A, GUMBO_TAG_B, GUMBO_TAG_BIG, GUMBO_TAG_CODE,
                   GUMBO_TAG_EM, GUMBO_TAG_FONT, GUMBO_TAG_I, GUMBO_TAG_NOBR,
                   GUMBO_TAG_S, GUMBO_TAG_SMALL, GUMBO_TAG_STRIKE,
                   GUMBO_TAG_STRONG, GUMBO_TAG_TT, GUMBO_TAG_U});
}

// The scopes of gumbo's has_an_element_in_*_scope.
enum class Scope { kDefault, kListItem, kButton, kTable };

bool EndsScope(GumboTag t, Scope scope) {
  if (scope == Scope::kTable) {
    return TagIn(t, {GUMBO_TAG_HTML, GUMBO_TAG_TABLE, GUMBO_TAG_TEMPLATE});
  }
  if (TagIn(t, {GUMBO_TAG_APPLET, GUMBO_TAG_CAPTION, GUMBO_TAG_HTML,
                GUMBO_TAG_TABLE, GUMBO_TAG_TD, GUMBO_TAG_TH, GUMBO_TAG_MARQUEE,
                GUMBO_TAG_OBJECT, GUMBO_TAG_TEMPLATE})) {
    return true;
  }
  if (scope == Scope::kListItem) {
    return t == GUMBO_TAG_OL || t == GUMBO_TAG_UL;
  }
  return scope == Scope::kButton && t == GUMBO_TAG_BUTTON;
}

class Builder {
 public:
  Builder(std::string_view in, const StyleSheet& styles, std::uint32_t limit)
      : in_(in), tokens_(in), walker_(styles, limit), limit_(limit) {}

  // The text, or nullopt with the reason in *why (when not null).
  std::optional<std::string> Run(std::string_view* why) && {
    switch (ReadAsGumbo(in_, &cleaned_)) {
      case GumboInput::kNul:
        if (why != nullptr) *why = "a NUL byte";
        return std::nullopt;
      case GumboInput::kReplaced:
        in_ = cleaned_;
        tokens_ = Tokenizer(in_);
        break;
      case GumboInput::kAsIs:
        break;
    }
    while (true) {
      Token token = tokens_.Next();
      if (token.kind == TokenKind::kEnd) break;
      if (!Step(token)) {
        if (why != nullptr) *why = why_ != nullptr ? why_ : "not modelled";
        return std::nullopt;
      }
    }
    while (!stack_.empty()) Pop();
    return walker_.Finish();
  }

 private:
  static constexpr std::uint32_t kMarker =
      std::numeric_limits<std::uint32_t>::max();

  struct Frame {
    GumboTag tag;
    Inherited state;  // what its children get
    Layout layout = Layout::kInline;
    bool shown = false;  // the Walker accepted it: Close on pop
    unsigned sets = 0;   // the fields of the state it set (kSets*)
    std::uint32_t id = 0;
  };

  enum class Mode {
    kBody,
    kTable,
    kTableBody,
    kRow,
    kCell,
    kSelect,
    kSelectInTable
  };
  // What one tag did: done, to be handled again in the mode it left (gumbo's
  // _reprocess_current_token), or not modelled.
  enum class Did { kDone, kAgain, kGiveUp };

  // Both record the first reason given (nullptr: the callee gave it).
  bool Fail(const char* why) {
    if (why_ == nullptr) why_ = why;
    return false;
  }
  Did GiveUp(const char* why) {
    (void)Fail(why);
    return Did::kGiveUp;
  }
  std::string_view Span(const Token& t) const {
    return in_.substr(t.begin, t.end - t.begin);
  }

  bool Step(const Token& token) {
    offset_ = token.end;
    const bool ignore_lf = ignore_next_lf_;
    ignore_next_lf_ = false;
    if (!quirks_) {
      // gumbo's initial mode: whitespace is skipped, a doctype decides, and
      // anything else means quirks mode.
      if (token.kind == TokenKind::kDoctype) {
        quirks_ = QuirksModeOf(Span(token));
      } else if (token.kind != TokenKind::kComment &&
                 !(token.kind == TokenKind::kText &&
                   Trim(Span(token)).empty())) {
        quirks_ = QuirksMode::kQuirks;
      }
    }
    switch (token.kind) {
      case TokenKind::kText:
        return Text(Span(token), ignore_lf);
      case TokenKind::kLessThan:
        return Text("<", false);
      case TokenKind::kStartTag:
      case TokenKind::kEndTag: {
        const GumboTag tag = gumbo_tagn_enum(
            token.name.data(), static_cast<unsigned>(token.name.size()));
        const bool start = token.kind == TokenKind::kStartTag;
        for (int round = 0; round < 8; ++round) {
          const Did did = start ? Start(tag, token) : End(tag);
          if (did == Did::kDone) return true;
          if (did == Did::kGiveUp) return false;
        }
        return Fail("a tag handled again and again");
      }
      case TokenKind::kDoctype:  // past the initial mode: ignored
      case TokenKind::kComment:
      case TokenKind::kTruncated:
        return true;
      case TokenKind::kRawText:  // after an ignored raw-text start tag
        if (!raw_as_text_) return Fail("raw text where no element opened it");
        raw_as_text_ = false;
        return Text(Span(token), false);
      case TokenKind::kEnd:
        return false;
    }
    return false;
  }

  // ---- the stack and the list of active formatting elements ----

  bool TopIs(GumboTag t) const {
    return !stack_.empty() && stack_.back().tag == t;
  }

  bool Alive(std::uint32_t id) const { return elements_[id].alive; }
  GumboTag TagOf(std::uint32_t id) const { return elements_[id].tag; }

  // Opens an element under the current node. False past the nesting limit.
  bool Push(GumboTag tag, const ElementAttributes& attributes) {
    if (stack_.size() + 1 > limit_) {
      return Fail("deeper than the nesting limit");
    }
    Flush();  // gumbo inserts its text buffer before the element
    Frame f;
    f.tag = tag;
    const bool parent_hidden = !stack_.empty() && hidden_depth_ > 0;
    if (!stack_.empty()) f.state = stack_.back().state;
    if (!parent_hidden) {
      f.shown = walker_.Enter(tag, attributes, &f.state, &f.layout, &f.sets);
    }
    if (parent_hidden || !f.shown) ++hidden_depth_;
    f.id = static_cast<std::uint32_t>(elements_.size());
    elements_.push_back({tag, true, -1});
    if (IsTableStructure(tag)) table_frames_.push_back(stack_.size());
    stack_.push_back(f);
    return true;
  }

  bool PushVoid(GumboTag tag, const ElementAttributes& attributes) {
    if (!Push(tag, attributes)) return false;
    Pop();
    return true;
  }

  // Closes the current node; `flush` false for gumbo's `</form>`, which
  // takes the form off the stack without writing out its text buffer.
  void Pop(bool flush = true) {
    if (flush) Flush();
    const Frame f = stack_.back();
    stack_.pop_back();
    elements_[f.id].alive = false;
    if (!table_frames_.empty() && table_frames_.back() == stack_.size()) {
      table_frames_.pop_back();
    }
    if (f.shown) {
      walker_.Close(f.layout);
    } else {
      --hidden_depth_;
    }
  }

  // The Walker skips a hidden element's subtree: hidden_depth_ counts the
  // open elements it did not accept or that lie under one.
  bool Hidden() const { return hidden_depth_ > 0; }

  std::size_t LastMarker() const {
    for (std::size_t i = formatting_.size(); i-- > 0;) {
      if (formatting_[i] == kMarker) return i + 1;
    }
    return 0;
  }

  // reconstruct_active_formatting_elements: when the list's last entry is
  // an element no longer open, it and the closed ones before it (back to a
  // marker or an open one) are opened again under the current node, with
  // their attributes, and take their places in the list. False past the
  // nesting limit.
  bool Reconstruct() {
    if (formatting_.empty() || formatting_.back() == kMarker ||
        Alive(formatting_.back())) {
      return true;
    }
    std::size_t i = formatting_.size() - 1;
    while (i > 0 && formatting_[i - 1] != kMarker &&
           !Alive(formatting_[i - 1])) {
      --i;
    }
    for (; i < formatting_.size(); ++i) {
      const Element old = elements_[formatting_[i]];
      if (!Push(old.tag, saved_[static_cast<std::size_t>(old.saved)].View())) {
        return false;
      }
      elements_.back().saved = old.saved;
      formatting_[i] = stack_.back().id;
    }
    return true;
  }

  // add_formatting_element for the element just opened with `attributes`
  // (read with all), and its Noah's Ark clause: past three entries with the
  // tag and attributes after the last marker, the earliest leaves the list.
  void AddFormatting(const TagAttributes& attributes) {
    const GumboTag tag = stack_.back().tag;
    std::size_t same = 0;
    std::size_t earliest = formatting_.size();
    for (std::size_t i = formatting_.size(); i-- > LastMarker();) {
      const Element& e = elements_[formatting_[i]];
      if (e.tag == tag &&
          saved_[static_cast<std::size_t>(e.saved)].SameAs(attributes)) {
        ++same;
        earliest = i;
      }
    }
    if (same >= 3) {
      formatting_.erase(formatting_.begin() +
                        static_cast<std::ptrdiff_t>(earliest));
    }
    elements_.back().saved = static_cast<int>(saved_.size());
    saved_.push_back(attributes);
    formatting_.push_back(stack_.back().id);
  }

  void ClearFormattingToMarker() {
    while (!formatting_.empty()) {
      const std::uint32_t last = formatting_.back();
      formatting_.pop_back();
      if (last == kMarker) return;
    }
  }

  bool InScope(GumboTag tag, Scope scope) const {
    for (std::size_t i = stack_.size(); i-- > 0;) {
      if (stack_[i].tag == tag) return true;
      if (EndsScope(stack_[i].tag, scope)) return false;
    }
    return false;
  }

  // generate_implied_end_tags (option, optgroup and the ruby tags never get
  // on the stack here).
  void GenerateImpliedEndTags(GumboTag except) {
    while (!stack_.empty() &&
           TagIn(stack_.back().tag,
                 {GUMBO_TAG_DD, GUMBO_TAG_DT, GUMBO_TAG_LI, GUMBO_TAG_P}) &&
           stack_.back().tag != except) {
      Pop();
    }
  }

  // implicitly_close_tags: the caller made sure `target` is open.
  void CloseThrough(GumboTag target) {
    GenerateImpliedEndTags(target);
    while (stack_.back().tag != target) Pop();
    Pop();
  }

  void MaybeCloseP() {
    if (InScope(GUMBO_TAG_P, Scope::kButton)) CloseThrough(GUMBO_TAG_P);
  }

  // maybe_implicitly_close_list_tag.
  void CloseListItem(bool li) {
    for (std::size_t i = stack_.size(); i-- > 0;) {
      const GumboTag t = stack_[i].tag;
      const bool item =
          li ? t == GUMBO_TAG_LI : (t == GUMBO_TAG_DD || t == GUMBO_TAG_DT);
      if (item) {
        CloseThrough(t);
        return;
      }
      if (IsSpecial(t) &&
          !TagIn(t, {GUMBO_TAG_ADDRESS, GUMBO_TAG_DIV, GUMBO_TAG_P})) {
        return;
      }
    }
  }

  // The elements whose place on the stack decides the insertion mode.
  static bool IsTableStructure(GumboTag t) {
    return TagIn(t, {GUMBO_TAG_TD, GUMBO_TAG_TH, GUMBO_TAG_TR, GUMBO_TAG_TBODY,
                     GUMBO_TAG_THEAD, GUMBO_TAG_TFOOT, GUMBO_TAG_TABLE,
                     GUMBO_TAG_SELECT});
  }

  // The innermost table element on the stack decides (table_frames_ holds
  // their places).
  Mode CurrentMode() const {
    if (!table_frames_.empty()) {
      switch (stack_[table_frames_.back()].tag) {
        case GUMBO_TAG_TD:
        case GUMBO_TAG_TH:
          return Mode::kCell;
        case GUMBO_TAG_TR:
          return Mode::kRow;
        case GUMBO_TAG_TBODY:
        case GUMBO_TAG_THEAD:
        case GUMBO_TAG_TFOOT:
          return Mode::kTableBody;
        case GUMBO_TAG_SELECT:
          return table_frames_.size() > 1 ? Mode::kSelectInTable
                                          : Mode::kSelect;
        default:
          return Mode::kTable;
      }
    }
    return Mode::kBody;
  }

  // ---- tokens ----

  // Opens <html> and <body> as gumbo implies them, once.
  // Every later <body> adds the attributes the body lacks (merge_attributes)
  // and the Walker reads them when it enters the body, before its content:
  // so they are read ahead here, from the tokens after this one (only when
  // there is another "<body"). A later <body> inside <select> would be
  // ignored: left to gumbo, as are templates and framesets.
  bool StartBody(TagAttributes body) {
    if (stack_.empty() && !Push(GUMBO_TAG_HTML, {})) return false;
    if (HasTagNoCase(in_.substr(offset_), "<body")) {
      Tokenizer ahead = tokens_;
      for (Token t = ahead.Next(); t.kind != TokenKind::kEnd;
           t = ahead.Next()) {
        if (t.kind != TokenKind::kStartTag) continue;
        if (t.name == "select" || t.name == "template" ||
            t.name == "frameset") {
          return Fail("a second <body> where it may be ignored");
        }
        if (t.name != "body") continue;
        TagAttributes later;
        if (!later.Read(in_.substr(t.name_end, t.end - 1 - t.name_end),
                        GUMBO_TAG_BODY, false)) {
          return Fail("an attribute named twice, or its value");
        }
        body.MergeMissing(later);
      }
    }
    body_started_ = true;
    body_present_ = body.Present();
    return Push(GUMBO_TAG_BODY, body.View());
  }

  // Character data with its references decoded into decoded_, and a first
  // line feed dropped with `ignore_lf` (after <pre>, <listing>, <textarea>).
  bool Decode(std::string_view raw, bool ignore_lf, std::string_view* text) {
    decoded_.clear();
    if (!DecodeReferences(raw, false, &decoded_)) {
      return Fail("a character reference");
    }
    *text = decoded_;
    if (ignore_lf && !text->empty() && text->front() == '\n') {
      // gumbo skips a line feed read as such, not one a reference wrote.
      if (raw.front() == '&') {
        return Fail("a line feed from a reference after <pre>");
      }
      text->remove_prefix(1);
    }
    return true;
  }

  bool Text(std::string_view raw, bool ignore_lf) {
    std::string_view text;
    if (!Decode(raw, ignore_lf, &text)) return false;
    if (text.empty()) return true;
    const bool blank = Trim(text).empty();
    if (!body_started_) {
      if (blank) return true;  // before html or in head: not shown
      if (!StartBody({})) return Fail(nullptr);
    }
    const Mode mode = CurrentMode();
    if (mode == Mode::kTable || mode == Mode::kTableBody ||
        mode == Mode::kRow) {
      // handle_in_table_text: anything but whitespace is foster-parented.
      if (!blank) return Fail("text in a table (foster parenting)");
    } else if (mode != Mode::kSelect && mode != Mode::kSelectInTable &&
               !Reconstruct()) {
      return Fail(nullptr);
    }
    pending_.append(text);
    return true;
  }

  // gumbo keeps character tokens in a buffer and inserts them as one text
  // node into the current node when an element is opened or closed (or the
  // document ends), not when they come; so does this.
  void Flush() {
    if (pending_.empty()) return;
    if (!Hidden()) walker_.Text(stack_.back().state, pending_);
    pending_.clear();
  }

  // The content and end of a raw-text element just opened (or, with `open`
  // false, not opened): script, style, title, textarea, iframe, noembed,
  // noframes. Only textarea's content can show.
  bool RawContent(bool open) {
    const Token raw = tokens_.Next();
    if (raw.kind != TokenKind::kRawText) {
      return Fail("raw text not where the tokenizer puts it");
    }
    if (open && stack_.back().tag == GUMBO_TAG_TEXTAREA && !Hidden()) {
      std::string_view text;
      if (!Decode(Span(raw), /*ignore_lf=*/true, &text)) return false;
      if (!text.empty()) walker_.Text(stack_.back().state, text);
    }
    const Token close = tokens_.Next();
    if (open) Pop();  // handle_text pops at its end tag or at the end
    return close.kind == TokenKind::kEndTag ||
           close.kind == TokenKind::kTruncated || close.kind == TokenKind::kEnd;
  }

  // A raw-text element under the current node.
  Did RawElement(GumboTag tag, const ElementAttributes& attributes) {
    if (!Push(tag, attributes)) return GiveUp(nullptr);
    return RawContent(true) ? Did::kDone : GiveUp(nullptr);
  }

  Did Start(GumboTag tag, const Token& token) {
    // One object read again for each tag: most tags are not kept.
    TagAttributes& attributes = attributes_;
    attributes.Clear();
    if (!attributes.Read(
            in_.substr(token.name_end, token.end - 1 - token.name_end), tag,
            IsFormatting(tag))) {
      return GiveUp("an attribute named twice, or its value");
    }
    const ElementAttributes a = attributes.View();
    // A second <html> or <body> adds the attributes the element lacks
    // (merge_attributes): nothing to do unless the Walker reads one.
    if (tag == GUMBO_TAG_HTML && !stack_.empty()) {
      return (attributes.Present() & ~html_present_) == 0
                 ? Did::kDone
                 : GiveUp("a second <html> with new attributes");
    }
    if (tag == GUMBO_TAG_BODY && body_started_) {
      // Read ahead when the body opened (StartBody).
      return (attributes.Present() & ~body_present_) == 0
                 ? Did::kDone
                 : GiveUp("a second <body> not read ahead");
    }
    if (!body_started_) {
      switch (tag) {
        case GUMBO_TAG_HTML:
          html_present_ = attributes.Present();
          return Push(tag, a) ? Did::kDone : GiveUp(nullptr);
        case GUMBO_TAG_HEAD:
        case GUMBO_TAG_BASE:
        case GUMBO_TAG_BASEFONT:
        case GUMBO_TAG_BGSOUND:
        case GUMBO_TAG_LINK:
        case GUMBO_TAG_META:
          return Did::kDone;  // in head: never shown
        case GUMBO_TAG_TITLE:
        case GUMBO_TAG_STYLE:
        case GUMBO_TAG_SCRIPT:
        case GUMBO_TAG_NOFRAMES:
          return RawContent(false) ? Did::kDone : GiveUp(nullptr);
        case GUMBO_TAG_BODY:
          return StartBody(attributes) ? Did::kDone : GiveUp(nullptr);
        case GUMBO_TAG_TEMPLATE:
        case GUMBO_TAG_FRAMESET:
        case GUMBO_TAG_MENUITEM:
          return GiveUp("a template, frameset or menuitem");
        default:
          if (!StartBody({})) return GiveUp(nullptr);
          break;
      }
    }
    switch (CurrentMode()) {
      case Mode::kSelectInTable:
        if (TagIn(tag, {GUMBO_TAG_CAPTION, GUMBO_TAG_TABLE, GUMBO_TAG_TBODY,
                        GUMBO_TAG_TFOOT, GUMBO_TAG_THEAD, GUMBO_TAG_TR,
                        GUMBO_TAG_TD, GUMBO_TAG_TH})) {
          CloseSelect();
          return Did::kAgain;
        }
        return StartInSelect(tag, a);
      case Mode::kSelect:
        return StartInSelect(tag, a);
      case Mode::kRow:
        if (tag == GUMBO_TAG_TD || tag == GUMBO_TAG_TH) {
          if (!Push(tag, a)) return GiveUp(nullptr);
          formatting_.push_back(kMarker);
          return Did::kDone;
        }
        if (TagIn(tag, {GUMBO_TAG_CAPTION, GUMBO_TAG_COL, GUMBO_TAG_COLGROUP,
                        GUMBO_TAG_TBODY, GUMBO_TAG_TFOOT, GUMBO_TAG_THEAD,
                        GUMBO_TAG_TR})) {
          if (!InScope(GUMBO_TAG_TR, Scope::kTable)) return Did::kDone;
          Pop();  // the tr
          return Did::kAgain;
        }
        return StartInTable(tag, attributes);
      case Mode::kTableBody:
        if (tag == GUMBO_TAG_TR) {
          return Push(tag, a) ? Did::kDone : GiveUp(nullptr);
        }
        if (tag == GUMBO_TAG_TD || tag == GUMBO_TAG_TH) {
          return Push(GUMBO_TAG_TR, {}) ? Did::kAgain : GiveUp(nullptr);
        }
        if (TagIn(tag, {GUMBO_TAG_CAPTION, GUMBO_TAG_COL, GUMBO_TAG_COLGROUP,
                        GUMBO_TAG_TBODY, GUMBO_TAG_TFOOT, GUMBO_TAG_THEAD})) {
          Pop();  // the tbody, thead or tfoot: the current node (see top)
          return Did::kAgain;
        }
        return StartInTable(tag, attributes);
      case Mode::kTable:
        return StartInTable(tag, attributes);
      case Mode::kCell:
        if (TagIn(tag, {GUMBO_TAG_CAPTION, GUMBO_TAG_COL, GUMBO_TAG_COLGROUP,
                        GUMBO_TAG_TBODY, GUMBO_TAG_TD, GUMBO_TAG_TFOOT,
                        GUMBO_TAG_TH, GUMBO_TAG_THEAD, GUMBO_TAG_TR})) {
          CloseCurrentCell();
          return Did::kAgain;
        }
        return StartInBody(tag, attributes);
      case Mode::kBody:
        return StartInBody(tag, attributes);
    }
    return GiveUp("no insertion mode");
  }

  // close_current_select.
  void CloseSelect() {
    while (stack_.back().tag != GUMBO_TAG_SELECT) Pop();
    Pop();
  }

  // has_an_element_in_select_scope(select): only option and optgroup may
  // lie above it.
  bool SelectInSelectScope() const {
    for (std::size_t i = stack_.size(); i-- > 0;) {
      if (stack_[i].tag == GUMBO_TAG_SELECT) return true;
      if (stack_[i].tag != GUMBO_TAG_OPTION &&
          stack_[i].tag != GUMBO_TAG_OPTGROUP) {
        return false;
      }
    }
    return false;
  }

  // handle_in_select, start tags: options, and almost everything else is
  // ignored.
  Did StartInSelect(GumboTag tag, const ElementAttributes& a) {
    switch (tag) {
      case GUMBO_TAG_OPTION:
        if (TopIs(GUMBO_TAG_OPTION)) Pop();
        return Push(tag, a) ? Did::kDone : GiveUp(nullptr);
      case GUMBO_TAG_OPTGROUP:
        if (TopIs(GUMBO_TAG_OPTION)) Pop();
        if (TopIs(GUMBO_TAG_OPTGROUP)) Pop();
        return Push(tag, a) ? Did::kDone : GiveUp(nullptr);
      case GUMBO_TAG_SELECT:
        if (SelectInSelectScope()) CloseSelect();
        return Did::kDone;
      case GUMBO_TAG_INPUT:
      case GUMBO_TAG_KEYGEN:
      case GUMBO_TAG_TEXTAREA:
        if (!SelectInSelectScope()) {
          if (tag == GUMBO_TAG_TEXTAREA) raw_as_text_ = true;
          return Did::kDone;
        }
        CloseSelect();
        return Did::kAgain;
      case GUMBO_TAG_SCRIPT:
        return RawElement(tag, a);
      case GUMBO_TAG_TEMPLATE:
        return GiveUp("a template");
      default:
        // Ignored. A raw-text element's content was then never raw text to
        // gumbo's tokenizer: Prepare escaped it, so it is text here.
        if (IsRawTextElement(gumbo_normalized_tagname(tag))) {
          raw_as_text_ = true;
        }
        return Did::kDone;
    }
  }

  // close_current_cell: a td or th is in table scope (the mode says so).
  void CloseCurrentCell() {
    const GumboTag cell =
        InScope(GUMBO_TAG_TD, Scope::kTable) ? GUMBO_TAG_TD : GUMBO_TAG_TH;
    GenerateImpliedEndTags(GUMBO_TAG_LAST);
    while (stack_.back().tag != cell) Pop();
    Pop();
    ClearFormattingToMarker();
  }

  // handle_in_table; the current node is the table, tbody, thead, tfoot or tr.
  Did StartInTable(GumboTag tag, const TagAttributes& attributes) {
    const ElementAttributes a = attributes.View();
    switch (tag) {
      case GUMBO_TAG_TBODY:
      case GUMBO_TAG_TFOOT:
      case GUMBO_TAG_THEAD:
        if (!TopIs(GUMBO_TAG_TABLE)) {
          return GiveUp("a table section not under its table");
        }
        return Push(tag, a) ? Did::kDone : GiveUp(nullptr);
      case GUMBO_TAG_TD:
      case GUMBO_TAG_TH:
      case GUMBO_TAG_TR:
        if (!TopIs(GUMBO_TAG_TABLE)) {
          return GiveUp("a table row not under its table");
        }
        return Push(GUMBO_TAG_TBODY, {}) ? Did::kAgain : GiveUp(nullptr);
      case GUMBO_TAG_TABLE:
        // close_table, then the new table where the old one was.
        while (stack_.back().tag != GUMBO_TAG_TABLE) Pop();
        Pop();
        return Did::kAgain;
      case GUMBO_TAG_STYLE:
      case GUMBO_TAG_SCRIPT:
        return RawElement(tag, a);
      case GUMBO_TAG_FORM:
        if (form_ != kMarker) return Did::kDone;  // ignored
        if (!Push(tag, a)) return GiveUp(nullptr);
        form_ = stack_.back().id;
        Pop();
        return Did::kDone;
      case GUMBO_TAG_INPUT:
        if (!attributes.TypeIsHidden()) {
          return GiveUp("an element in a table (foster parenting)");
        }
        return PushVoid(tag, a) ? Did::kDone : GiveUp(nullptr);
      default:  // caption, colgroup, col, template; foster parenting
        return GiveUp("an element in a table (foster parenting)");
    }
  }

  // handle_in_body, start tags.
  Did StartInBody(GumboTag tag, const TagAttributes& attributes) {
    const ElementAttributes a = attributes.View();
    auto push = [&]() { return Push(tag, a) ? Did::kDone : GiveUp(nullptr); };
    switch (tag) {
      case GUMBO_TAG_BASE:
      case GUMBO_TAG_BASEFONT:
      case GUMBO_TAG_BGSOUND:
      case GUMBO_TAG_LINK:
      case GUMBO_TAG_META:
        return PushVoid(tag, a) ? Did::kDone : GiveUp(nullptr);
      case GUMBO_TAG_TITLE:
      case GUMBO_TAG_STYLE:
      case GUMBO_TAG_SCRIPT:
      case GUMBO_TAG_NOFRAMES:
      case GUMBO_TAG_IFRAME:
      case GUMBO_TAG_NOEMBED:
      case GUMBO_TAG_TEXTAREA:
        if (tag == GUMBO_TAG_TEXTAREA) ignore_next_lf_ = false;
        return RawElement(tag, a);
      case GUMBO_TAG_ADDRESS:
      case GUMBO_TAG_ARTICLE:
      case GUMBO_TAG_ASIDE:
      case GUMBO_TAG_BLOCKQUOTE:
      case GUMBO_TAG_CENTER:
      case GUMBO_TAG_DETAILS:
      case GUMBO_TAG_DIR:
      case GUMBO_TAG_DIV:
      case GUMBO_TAG_DL:
      case GUMBO_TAG_FIELDSET:
      case GUMBO_TAG_FIGCAPTION:
      case GUMBO_TAG_FIGURE:
      case GUMBO_TAG_FOOTER:
      case GUMBO_TAG_HEADER:
      case GUMBO_TAG_HGROUP:
      case GUMBO_TAG_MENU:
      case GUMBO_TAG_MAIN:
      case GUMBO_TAG_NAV:
      case GUMBO_TAG_OL:
      case GUMBO_TAG_P:
      case GUMBO_TAG_SECTION:
      case GUMBO_TAG_SUMMARY:
      case GUMBO_TAG_UL:
        MaybeCloseP();
        return push();
      case GUMBO_TAG_H1:
      case GUMBO_TAG_H2:
      case GUMBO_TAG_H3:
      case GUMBO_TAG_H4:
      case GUMBO_TAG_H5:
      case GUMBO_TAG_H6:
        MaybeCloseP();
        if (IsHeading(stack_.back().tag)) Pop();
        return push();
      case GUMBO_TAG_PRE:
      case GUMBO_TAG_LISTING:
        MaybeCloseP();
        ignore_next_lf_ = true;
        return push();
      case GUMBO_TAG_FORM:
        if (form_ != kMarker) return Did::kDone;  // a nested form: ignored
        MaybeCloseP();
        if (!Push(tag, a)) return GiveUp(nullptr);
        form_ = stack_.back().id;
        return Did::kDone;
      case GUMBO_TAG_LI:
        CloseListItem(true);
        MaybeCloseP();
        return push();
      case GUMBO_TAG_DD:
      case GUMBO_TAG_DT:
        CloseListItem(false);
        MaybeCloseP();
        return push();
      case GUMBO_TAG_BUTTON:
        if (InScope(GUMBO_TAG_BUTTON, Scope::kDefault) || !Reconstruct()) {
          return GiveUp("a button in a button");
        }
        return push();
      case GUMBO_TAG_A:
      case GUMBO_TAG_NOBR:
      case GUMBO_TAG_B:
      case GUMBO_TAG_BIG:
      case GUMBO_TAG_CODE:
      case GUMBO_TAG_EM:
      case GUMBO_TAG_FONT:
      case GUMBO_TAG_I:
      case GUMBO_TAG_S:
      case GUMBO_TAG_SMALL:
      case GUMBO_TAG_STRIKE:
      case GUMBO_TAG_STRONG:
      case GUMBO_TAG_TT:
      case GUMBO_TAG_U:
        if (tag == GUMBO_TAG_A && OpenAnchor()) {
          // An <a> inside an <a>: the adoption agency closes the first.
          if (AdoptionAgency(GUMBO_TAG_A) != Did::kDone || OpenAnchor()) {
            return GiveUp("an <a> in an <a>");
          }
        }
        if (!Reconstruct()) return GiveUp(nullptr);
        if (tag == GUMBO_TAG_NOBR && InScope(GUMBO_TAG_NOBR, Scope::kDefault)) {
          return GiveUp("a <nobr> in a <nobr>");
        }
        if (!Push(tag, a)) return GiveUp(nullptr);
        AddFormatting(attributes);
        return Did::kDone;
      case GUMBO_TAG_APPLET:
      case GUMBO_TAG_MARQUEE:
      case GUMBO_TAG_OBJECT:
        if (!Reconstruct() || !Push(tag, a)) return GiveUp(nullptr);
        formatting_.push_back(kMarker);
        return Did::kDone;
      case GUMBO_TAG_TABLE:
        // An open <p> stays open in quirks mode.
        if (quirks_ == QuirksMode::kUnknown &&
            InScope(GUMBO_TAG_P, Scope::kButton)) {
          return GiveUp("a table in a <p>, quirks mode unknown");
        }
        if (quirks_ != QuirksMode::kQuirks) MaybeCloseP();
        return push();
      case GUMBO_TAG_AREA:
      case GUMBO_TAG_BR:
      case GUMBO_TAG_EMBED:
      case GUMBO_TAG_IMG:
      case GUMBO_TAG_KEYGEN:
      case GUMBO_TAG_WBR:
      case GUMBO_TAG_INPUT:
        if (!Reconstruct()) return GiveUp(nullptr);
        return PushVoid(tag, a) ? Did::kDone : GiveUp(nullptr);
      case GUMBO_TAG_PARAM:
      case GUMBO_TAG_SOURCE:
      case GUMBO_TAG_TRACK:
        return PushVoid(tag, a) ? Did::kDone : GiveUp(nullptr);
      case GUMBO_TAG_HR:
        MaybeCloseP();
        return PushVoid(tag, a) ? Did::kDone : GiveUp(nullptr);
      case GUMBO_TAG_CAPTION:
      case GUMBO_TAG_COL:
      case GUMBO_TAG_COLGROUP:
      case GUMBO_TAG_FRAME:
      case GUMBO_TAG_HEAD:
      case GUMBO_TAG_TBODY:
      case GUMBO_TAG_TD:
      case GUMBO_TAG_TFOOT:
      case GUMBO_TAG_TH:
      case GUMBO_TAG_THEAD:
      case GUMBO_TAG_TR:
        return Did::kDone;  // ignored outside a table
      case GUMBO_TAG_HTML:
      case GUMBO_TAG_BODY:
      case GUMBO_TAG_FRAMESET:
      case GUMBO_TAG_TEMPLATE:
      case GUMBO_TAG_MENUITEM:
      case GUMBO_TAG_PLAINTEXT:
      case GUMBO_TAG_XMP:
      case GUMBO_TAG_NOSCRIPT:
      case GUMBO_TAG_SELECT:
        if (!Reconstruct()) return GiveUp(nullptr);
        return push();
      case GUMBO_TAG_IMAGE:
      case GUMBO_TAG_ISINDEX:
      case GUMBO_TAG_OPTION:
      case GUMBO_TAG_OPTGROUP:
      case GUMBO_TAG_RB:
      case GUMBO_TAG_RP:
      case GUMBO_TAG_RT:
      case GUMBO_TAG_RTC:
      case GUMBO_TAG_MATH:
      case GUMBO_TAG_SVG:
        return GiveUp(
            "an element not modelled (ruby, foreign content, frames, ...)");
      default:  // any other start tag, unknown ones included
        if (!Reconstruct()) return GiveUp(nullptr);
        return push();
    }
  }

  Did End(GumboTag tag) {
    if (!body_started_) {
      switch (tag) {
        case GUMBO_TAG_BODY:
        case GUMBO_TAG_HTML:
        case GUMBO_TAG_BR:
        case GUMBO_TAG_TEMPLATE:
          return GiveUp("an end tag before <body>");
        default:
          return Did::kDone;  // </head> and stray end tags: ignored
      }
    }
    switch (CurrentMode()) {
      case Mode::kSelectInTable:
        if (TagIn(tag, {GUMBO_TAG_CAPTION, GUMBO_TAG_TABLE, GUMBO_TAG_TBODY,
                        GUMBO_TAG_TFOOT, GUMBO_TAG_THEAD, GUMBO_TAG_TR,
                        GUMBO_TAG_TD, GUMBO_TAG_TH})) {
          if (!InScope(tag, Scope::kTable)) return Did::kDone;
          CloseSelect();
          return Did::kAgain;
        }
        return EndInSelect(tag);
      case Mode::kSelect:
        return EndInSelect(tag);
      case Mode::kRow:
        switch (tag) {
          case GUMBO_TAG_TR:
            if (InScope(GUMBO_TAG_TR, Scope::kTable)) Pop();
            return Did::kDone;
          case GUMBO_TAG_TABLE:
            if (!InScope(GUMBO_TAG_TR, Scope::kTable)) return Did::kDone;
            Pop();
            return Did::kAgain;
          case GUMBO_TAG_TBODY:
          case GUMBO_TAG_TFOOT:
          case GUMBO_TAG_THEAD:
            if (!InScope(tag, Scope::kTable) ||
                !InScope(GUMBO_TAG_TR, Scope::kTable)) {
              return Did::kDone;
            }
            Pop();
            return Did::kAgain;
          default:  // body, caption, col, ... td, th: ignored there too
            return EndInTable(tag);
        }
      case Mode::kTableBody:
        switch (tag) {
          case GUMBO_TAG_TBODY:
          case GUMBO_TAG_TFOOT:
          case GUMBO_TAG_THEAD:
            if (InScope(tag, Scope::kTable)) Pop();
            return Did::kDone;
          case GUMBO_TAG_TABLE:
            Pop();  // the table body is in table scope: it is the top
            return Did::kAgain;
          default:  // body, caption, col, ... tr: ignored there too
            return EndInTable(tag);
        }
      case Mode::kTable:
        return EndInTable(tag);
      case Mode::kCell:
        switch (tag) {
          case GUMBO_TAG_TD:
          case GUMBO_TAG_TH:
            if (!InScope(tag, Scope::kTable)) return Did::kDone;
            GenerateImpliedEndTags(GUMBO_TAG_LAST);
            while (stack_.back().tag != tag) Pop();
            Pop();
            ClearFormattingToMarker();
            return Did::kDone;
          case GUMBO_TAG_BODY:
          case GUMBO_TAG_CAPTION:
          case GUMBO_TAG_COL:
          case GUMBO_TAG_COLGROUP:
          case GUMBO_TAG_HTML:
            return Did::kDone;
          case GUMBO_TAG_TABLE:
          case GUMBO_TAG_TBODY:
          case GUMBO_TAG_TFOOT:
          case GUMBO_TAG_THEAD:
          case GUMBO_TAG_TR:
            if (!InScope(tag, Scope::kTable)) return Did::kDone;
            CloseCurrentCell();
            return Did::kAgain;
          default:
            return EndInBody(tag);
        }
      case Mode::kBody:
        return EndInBody(tag);
    }
    return GiveUp("no insertion mode");
  }

  // handle_in_select, end tags.
  Did EndInSelect(GumboTag tag) {
    switch (tag) {
      case GUMBO_TAG_OPTGROUP:
        if (TopIs(GUMBO_TAG_OPTION) && stack_.size() >= 2 &&
            stack_[stack_.size() - 2].tag == GUMBO_TAG_OPTGROUP) {
          Pop();
        }
        if (TopIs(GUMBO_TAG_OPTGROUP)) Pop();
        return Did::kDone;
      case GUMBO_TAG_OPTION:
        if (TopIs(GUMBO_TAG_OPTION)) Pop();
        return Did::kDone;
      case GUMBO_TAG_SELECT:
        if (SelectInSelectScope()) CloseSelect();
        return Did::kDone;
      case GUMBO_TAG_TEMPLATE:
        return GiveUp("a template");
      default:
        return Did::kDone;
    }
  }

  Did EndInTable(GumboTag tag) {
    switch (tag) {
      case GUMBO_TAG_TABLE:
        if (!InScope(GUMBO_TAG_TABLE, Scope::kTable)) return Did::kDone;
        while (stack_.back().tag != GUMBO_TAG_TABLE) Pop();
        Pop();
        return Did::kDone;
      case GUMBO_TAG_BODY:
      case GUMBO_TAG_CAPTION:
      case GUMBO_TAG_COL:
      case GUMBO_TAG_COLGROUP:
      case GUMBO_TAG_HTML:
      case GUMBO_TAG_TBODY:
      case GUMBO_TAG_TD:
      case GUMBO_TAG_TFOOT:
      case GUMBO_TAG_TH:
      case GUMBO_TAG_THEAD:
      case GUMBO_TAG_TR:
        return Did::kDone;
      case GUMBO_TAG_TEMPLATE:
      case GUMBO_TAG_P:   // inserts an empty <p>: foster-parented
      case GUMBO_TAG_BR:  // inserts a <br>: foster-parented
        return GiveUp("an end tag in a table (foster parenting)");
      case GUMBO_TAG_FORM:
        // A form open under the table is out of scope: ignored.
        form_ = kMarker;
        return Did::kDone;
      default:
        // The rest goes to the in-body rules, which close or find nothing
        // across the table: every element they look for is above it (the
        // table is a scope boundary and special). A formatting element's
        // end may still take a closed one off the list.
        if (IsFormatting(tag)) (void)AdoptionAgency(tag);
        return Did::kDone;
    }
  }

  // handle_in_body, end tags.
  Did EndInBody(GumboTag tag) {
    switch (tag) {
      case GUMBO_TAG_TEMPLATE:
        return GiveUp("a template");
      case GUMBO_TAG_BR:  // read as <br>
        if (!Reconstruct()) return GiveUp(nullptr);
        return PushVoid(GUMBO_TAG_BR, {}) ? Did::kDone : GiveUp(nullptr);
      case GUMBO_TAG_BODY:
      case GUMBO_TAG_HTML:
        return Did::kDone;  // "after body" hands every later token back
      case GUMBO_TAG_ADDRESS:
      case GUMBO_TAG_ARTICLE:
      case GUMBO_TAG_ASIDE:
      case GUMBO_TAG_BLOCKQUOTE:
      case GUMBO_TAG_BUTTON:
      case GUMBO_TAG_CENTER:
      case GUMBO_TAG_DETAILS:
      case GUMBO_TAG_DIR:
      case GUMBO_TAG_DIV:
      case GUMBO_TAG_DL:
      case GUMBO_TAG_FIELDSET:
      case GUMBO_TAG_FIGCAPTION:
      case GUMBO_TAG_FIGURE:
      case GUMBO_TAG_FOOTER:
      case GUMBO_TAG_HEADER:
      case GUMBO_TAG_HGROUP:
      case GUMBO_TAG_LISTING:
      case GUMBO_TAG_MAIN:
      case GUMBO_TAG_MENU:
      case GUMBO_TAG_NAV:
      case GUMBO_TAG_OL:
      case GUMBO_TAG_PRE:
      case GUMBO_TAG_SECTION:
      case GUMBO_TAG_SUMMARY:
      case GUMBO_TAG_UL:
        if (InScope(tag, Scope::kDefault)) CloseThrough(tag);
        return Did::kDone;
      case GUMBO_TAG_FORM: {
        if (form_ == kMarker) return Did::kDone;
        const std::uint32_t form = form_;
        form_ = kMarker;
        if (!Alive(form)) return Did::kDone;
        // In scope: no scope boundary between it and the current node.
        for (std::size_t i = stack_.size(); i-- > 0;) {
          if (stack_[i].id == form) break;
          if (EndsScope(stack_[i].tag, Scope::kDefault)) return Did::kDone;
        }
        GenerateImpliedEndTags(GUMBO_TAG_LAST);
        // gumbo takes the form off the stack without flushing its text
        // buffer, so text since the last element opened or closed lands
        // after the form; and from anywhere on the stack, which is not
        // modelled.
        if (stack_.back().id != form) {
          return GiveUp("a form closed from the middle of the stack");
        }
        Pop(/*flush=*/false);
        return Did::kDone;
      }
      case GUMBO_TAG_P:
        if (!InScope(GUMBO_TAG_P, Scope::kButton)) {
          // An empty <p> is inserted and closed.
          return PushVoid(GUMBO_TAG_P, {}) ? Did::kDone : GiveUp(nullptr);
        }
        CloseThrough(GUMBO_TAG_P);
        return Did::kDone;
      case GUMBO_TAG_LI:
        if (InScope(GUMBO_TAG_LI, Scope::kListItem)) CloseThrough(tag);
        return Did::kDone;
      case GUMBO_TAG_DD:
      case GUMBO_TAG_DT:
        if (InScope(tag, Scope::kDefault)) CloseThrough(tag);
        return Did::kDone;
      case GUMBO_TAG_H1:
      case GUMBO_TAG_H2:
      case GUMBO_TAG_H3:
      case GUMBO_TAG_H4:
      case GUMBO_TAG_H5:
      case GUMBO_TAG_H6: {
        bool open = false;
        for (std::size_t i = stack_.size(); i-- > 0;) {
          if (IsHeading(stack_[i].tag)) {
            open = true;
            break;
          }
          if (EndsScope(stack_[i].tag, Scope::kDefault)) break;
        }
        if (!open) return Did::kDone;
        GenerateImpliedEndTags(GUMBO_TAG_LAST);
        while (!IsHeading(stack_.back().tag)) Pop();
        Pop();
        return Did::kDone;
      }
      case GUMBO_TAG_APPLET:
      case GUMBO_TAG_MARQUEE:
      case GUMBO_TAG_OBJECT:
        if (!InScope(tag, Scope::kTable)) return Did::kDone;
        CloseThrough(tag);
        ClearFormattingToMarker();
        return Did::kDone;
      default:
        break;
    }
    if (IsFormatting(tag)) {
      const Did did = AdoptionAgency(tag);
      if (did != Did::kAgain) return did;
    }
    // Any other end tag: the nearest open element of the tag, unless a
    // special element comes first. Unknown tags match any unknown element,
    // as gumbo compares tags by their enum.
    for (std::size_t i = stack_.size(); i-- > 0;) {
      if (stack_[i].tag == tag) {
        GenerateImpliedEndTags(tag);
        while (stack_.size() > i) Pop();
        return Did::kDone;
      }
      if (IsSpecial(stack_[i].tag)) return Did::kDone;
    }
    return Did::kDone;
  }

  // adoption_agency_algorithm. kAgain means "go on as for any other end
  // tag". With a furthest block (a special element opened inside the
  // formatting element) gumbo moves that block and what it holds out of the
  // formatting element and wraps its children in a copy of it, copying the
  // formatting elements in between too: the text keeps its order. Modelled
  // when nothing already written changes with it: the formatting element
  // changes no state (Walker::ChangesNothing), so moving it inside the block
  // leaves every state as it was, and only formatting elements on the list
  // (at most three) lie between it and the block, so the block leaves no
  // other element; and the block is not moved into a table (foster
  // parenting).
  Did AdoptionAgency(GumboTag subject) {
    const Frame& top = stack_.back();
    if (top.tag == subject && !InFormatting(top.id)) {
      Pop();
      return Did::kDone;
    }
    for (int round = 0; round < 8; ++round) {
      std::size_t entry = formatting_.size();
      for (std::size_t i = formatting_.size(); i-- > 0;) {
        if (formatting_[i] == kMarker) break;
        if (TagOf(formatting_[i]) == subject) {
          entry = i;
          break;
        }
      }
      if (entry == formatting_.size()) {
        return round == 0 ? Did::kAgain : Did::kDone;
      }
      const std::uint32_t id = formatting_[entry];
      if (!Alive(id)) {
        formatting_.erase(formatting_.begin() +
                          static_cast<std::ptrdiff_t>(entry));
        return Did::kDone;
      }
      if (!InScope(subject, Scope::kDefault)) return Did::kDone;
      std::size_t fe = stack_.size() - 1;
      while (stack_[fe].id != id) --fe;
      std::size_t block = fe + 1;
      while (block < stack_.size() && !IsSpecial(stack_[block].tag)) ++block;
      if (block == stack_.size()) {
        while (stack_.size() > fe) Pop();
        formatting_.erase(formatting_.begin() +
                          static_cast<std::ptrdiff_t>(entry));
        return Did::kDone;
      }
      if (!AdoptAroundBlock(entry, fe, block)) return GiveUp(nullptr);
    }
    return Did::kDone;
  }

  // One round of the adoption agency with a furthest block at stack_[block]
  // and the formatting element at stack_[fe], formatting_[entry]; false
  // where it is not modelled (see AdoptionAgency).
  bool AdoptAroundBlock(std::size_t entry, std::size_t fe, std::size_t block) {
    if (fe == 0 || block - fe - 1 > 3) {
      return Fail("the adoption agency: more than three elements between");
    }
    const Frame element = stack_[fe];
    if (!element.shown) {
      return Fail("the adoption agency: a hidden formatting element");
    }
    if (TagIn(stack_[fe - 1].tag,
              {GUMBO_TAG_TABLE, GUMBO_TAG_TBODY, GUMBO_TAG_TFOOT,
               GUMBO_TAG_THEAD, GUMBO_TAG_TR})) {
      return Fail("the adoption agency: into a table (foster parenting)");
    }
    std::vector<std::size_t> between;  // their places in formatting_
    unsigned others = stack_[block].sets;
    for (std::size_t i = fe + 1; i < block; ++i) {
      std::size_t at = formatting_.size();
      for (std::size_t k = 0; k < formatting_.size(); ++k) {
        if (formatting_[k] == stack_[i].id) at = k;
      }
      if (at == formatting_.size()) {
        return Fail("the adoption agency: a non-formatting element between");
      }
      between.push_back(at);
      others |= stack_[i].sets;
    }
    // The formatting element moves from above the others to below the block:
    // the same states only when no field it sets is set by them.
    if ((element.sets & others) != 0) {
      return Fail("the adoption agency: a style set twice");
    }
    const Inherited& common = stack_[fe - 1].state;
    // The ones in between become copies, on the stack and on the list; they
    // and the block no longer lie under the formatting element.
    std::size_t bookmark = entry + 1;
    for (std::size_t i = block; i-- > fe + 1;) {
      const std::size_t at = between[i - fe - 1];
      const std::uint32_t copy = Copy(stack_[i].id);
      formatting_[at] = copy;
      stack_[i].id = copy;
      stack_[i].state = WithFields(stack_[i].state, common, element.sets);
      if (i == block - 1) bookmark = at + 1;
    }
    // Its copy goes just above the block and holds the block's children
    // (those open are above it): they keep the states they had.
    Frame moved = stack_[block];
    moved.tag = element.tag;
    moved.id = Copy(element.id);
    moved.layout = Layout::kInline;
    moved.sets = element.sets;
    if (!moved.shown) ++hidden_depth_;  // under a block not shown
    stack_[block].state = WithFields(stack_[block].state, common, element.sets);
    if (entry < bookmark) --bookmark;
    formatting_.erase(formatting_.begin() + static_cast<std::ptrdiff_t>(entry));
    formatting_.insert(
        formatting_.begin() + static_cast<std::ptrdiff_t>(bookmark), moved.id);
    stack_.erase(stack_.begin() + static_cast<std::ptrdiff_t>(fe));
    for (std::size_t& t : table_frames_) {
      if (t > fe && t <= block) --t;
    }
    stack_.insert(stack_.begin() + static_cast<std::ptrdiff_t>(block), moved);
    return true;
  }

  // A new element like `id` (gumbo's clone_node), open on the stack.
  std::uint32_t Copy(std::uint32_t id) {
    Element e = elements_[id];
    e.alive = true;
    elements_[id].alive = false;
    elements_.push_back(e);
    return static_cast<std::uint32_t>(elements_.size() - 1);
  }

  // find_last_anchor_index: an <a> in the list after the last marker.
  bool OpenAnchor() const {
    for (std::size_t i = LastMarker(); i < formatting_.size(); ++i) {
      if (TagOf(formatting_[i]) == GUMBO_TAG_A) return true;
    }
    return false;
  }

  bool InFormatting(std::uint32_t id) const {
    for (std::uint32_t f : formatting_) {
      if (f == id) return true;
    }
    return false;
  }

  const char* why_ = nullptr;  // the first reason to give up
  std::string cleaned_;        // the input as gumbo reads it, when that differs
  std::string_view in_;
  Tokenizer tokens_;
  Walker walker_;
  std::uint32_t limit_;
  std::vector<Frame> stack_;
  struct Element {
    GumboTag tag;
    bool alive;  // still on the stack
    int saved;   // a formatting element's attributes in saved_, or -1
  };
  std::vector<Element> elements_;          // by id: every element opened
  std::vector<std::size_t> table_frames_;  // where the table elements are
  TagAttributes attributes_;               // the start tag being handled
  std::vector<TagAttributes> saved_;       // formatting elements' attributes
  unsigned html_present_ = 0;  // TagAttributes::Present of <html>, <body>
  unsigned body_present_ = 0;
  // The document's quirks mode, which decides whether <table> closes an
  // open <p>; unset until gumbo's initial mode has seen its first token.
  std::optional<QuirksMode> quirks_;
  std::vector<std::uint32_t> formatting_;  // ids and kMarker
  std::uint32_t form_ = kMarker;           // gumbo's form element pointer
  int hidden_depth_ = 0;
  bool body_started_ = false;
  bool ignore_next_lf_ = false;
  bool raw_as_text_ = false;  // the next kRawText is text (see StartInSelect)
  std::string pending_;       // gumbo's text buffer (see Flush)
  std::size_t offset_ = 0;    // where the token being handled ends
  std::string decoded_;
};

}  // namespace

std::optional<std::string> StreamText(std::string_view prepared,
                                      const StyleSheet& styles,
                                      std::uint32_t nesting_limit,
                                      std::string_view* why) {
  return Builder(prepared, styles, nesting_limit).Run(why);
}

}  // namespace mw::mime::internal
