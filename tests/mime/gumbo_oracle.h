// gumbo's own reading of small documents: the trees html_walker_test walks,
// and the oracle of the tests of the units that copy a part of gumbo
// (html_entities, html_attributes, html_doctype, html_chars' ReadAsGumbo).
#ifndef MW_TESTS_MIME_GUMBO_ORACLE_H_
#define MW_TESTS_MIME_GUMBO_ORACLE_H_

#include <gumbo.h>

#include <string>
#include <string_view>

namespace mw::mime::testing {

// One gumbo parse with its default allocator, freed at scope end.
class GumboParse {
 public:
  explicit GumboParse(std::string_view html)
      : output_(gumbo_parse_with_options(&kGumboDefaultOptions, html.data(),
                                         html.size())) {}
  ~GumboParse() { gumbo_destroy_output(&kGumboDefaultOptions, output_); }
  GumboParse(const GumboParse&) = delete;
  GumboParse& operator=(const GumboParse&) = delete;

  const GumboOutput& output() const { return *output_; }

  // The <body> element.
  const GumboNode* Body() const {
    const GumboVector& html = output_->root->v.element.children;
    return static_cast<const GumboNode*>(html.data[html.length - 1]);
  }

  // The first element child of <body>.
  const GumboElement& FirstElement() const {
    const GumboVector& children = Body()->v.element.children;
    for (unsigned i = 0; i < children.length; ++i) {
      const auto* node = static_cast<const GumboNode*>(children.data[i]);
      if (node->type == GUMBO_NODE_ELEMENT) return node->v.element;
    }
    return Body()->v.element;
  }

  // The text of the body's text children, concatenated.
  std::string BodyText() const {
    std::string text;
    const GumboVector& children = Body()->v.element.children;
    for (unsigned i = 0; i < children.length; ++i) {
      const auto* node = static_cast<const GumboNode*>(children.data[i]);
      if (node->type == GUMBO_NODE_TEXT ||
          node->type == GUMBO_NODE_WHITESPACE) {
        text += node->v.text.text;
      }
    }
    return text;
  }

 private:
  GumboOutput* output_;
};

}  // namespace mw::mime::testing

#endif  // MW_TESTS_MIME_GUMBO_ORACLE_H_
