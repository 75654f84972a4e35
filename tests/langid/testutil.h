// Helpers shared by the langid tests: a tiny hand-built dictionary and case
// folding.
#ifndef MW_TESTS_LANGID_TESTUTIL_H_
#define MW_TESTS_LANGID_TESTUTIL_H_

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "langid/build.h"
#include "langid/model.h"

namespace mw::langid::testing {

// en: house 10, bank 30 (total 40); de: haus 10, bank 10 (total 20).
// "bank": f_en = 0.75, f_de = 0.5, shares 0.6 / 0.4 -> tier 2. "house", "haus":
// tier 1.
inline std::vector<WordList> TinyLists() {
  return {{"en", {{"house", 10}, {"bank", 30}}},
          {"de", {{"haus", 10}, {"bank", 10}}}};
}

inline Model TinyModel() {
  auto bytes = Build(TinyLists(), BuildParams{});
  EXPECT_TRUE(bytes.has_value()) << (bytes ? "" : bytes.error().message());
  auto model = Model::FromBytes(std::move(*bytes));
  EXPECT_TRUE(model.has_value()) << (model ? "" : model.error().message());
  return std::move(*model);
}

}  // namespace mw::langid::testing

#endif  // MW_TESTS_LANGID_TESTUTIL_H_
