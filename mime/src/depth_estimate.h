// A conservative model of the depth of gumbo's stack of open elements, private
// to mw::mime. html_prepare.cc uses it to drop start tags that would nest
// deeper than a cap, before gumbo (whose start tags scan the whole stack) ever
// sees them.
#ifndef MW_MIME_DEPTH_ESTIMATE_H_
#define MW_MIME_DEPTH_ESTIMATE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace mw::mime::internal {

// How the HTML5 tree builder treats an element, as far as the depth of its
// stack of open elements goes.
enum class TagKind {
  kVoid,
  kUncounted,
  kFormatting,
  kSpecial,
  kBoundary,
  kOrdinary
};

// The kind of a lower-case tag name; kOrdinary for names it does not list
// (custom and unknown elements included).
TagKind KindOf(std::string_view name);

// Not thread-safe; one per document.
//
// Estimates the depth of gumbo's stack of open elements from the tag sequence,
// erring high.
//
// Counted elements are kept on a stack of names. An end tag pops it only where
// the tree builder certainly pops at least as much: a special element's end tag
// is ignored across a scope boundary (table, object, ...), other end tags
// across any special element (HTML5 "any other end tag"), and a formatting
// element with a special element above it is not popped at all (the adoption
// agency keeps the depth). </form> removes only the form. Formatting elements
// popped implicitly stay counted as "latent" until their own end tag: the tree
// builder reopens them at the next text, and a reopened element stays open
// ("Noah's Ark" limits the list of formatting elements to three alike, not
// the stack: <div><i></div>x repeated nests one more <i> each time).
class DepthEstimate {
 public:
  // Start refuses elements that would make Depth() exceed `cap`.
  explicit DepthEstimate(std::uint32_t cap) : cap_(cap) {}

  // The estimated number of open elements (html, head and body, like the other
  // kUncounted elements, are not counted): never below gumbo's count of the
  // counted elements, and never above the cap.
  std::size_t Depth() const { return stack_.size() + latent_.size(); }

  // A start tag (lower-case name) passed to the tree builder. Returns false,
  // leaving the count unchanged except for an implied </li>, </dd> or </dt>,
  // when the element would nest deeper than the cap: the caller must then
  // drop the tag. Void and kUncounted elements always return true outside svg
  // and math.
  bool Start(const std::string& name);

  // An end tag (lower-case name) passed to the tree builder; one whose
  // element is not open, or not in scope, changes nothing.
  void End(const std::string& name);

 private:
  // <li> closes the nearest open li (<dd>/<dt> the nearest dd or dt) unless a
  // special element other than address, div or p lies above it (HTML5 "in
  // body"); the popped formatting elements become latent.
  void CloseListItem(const std::string& name);

  // Pops the stack down to and including `target`.
  void PopTo(std::size_t target);

  bool InForeign() const;

  struct Entry {
    std::string name;
    TagKind kind;
  };
  void Erase(std::size_t i);
  void AddLatent(const std::string& name) { latent_.push_back(name); }
  void RemoveLatent(const std::string& name);

  std::uint32_t cap_;
  std::vector<Entry> stack_;
  std::unordered_map<std::string, std::size_t> open_count_;
  std::vector<std::string>
      latent_;  // at most cap_ entries: pops move, never add, depth
};

}  // namespace mw::mime::internal

#endif  // MW_MIME_DEPTH_ESTIMATE_H_
