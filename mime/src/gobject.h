// RAII for the GObjects mw::mime creates, private to the target.
#ifndef MW_MIME_GOBJECT_H_
#define MW_MIME_GOBJECT_H_

#include <glib-object.h>

#include <memory>

namespace mw::mime {

struct GObjectUnref {
  void operator()(void* p) const {
    if (p != nullptr) g_object_unref(p);
  }
};

// Owns one reference. GMime constructors return a new reference: wrap them with
// Adopt(). Accessors return borrowed pointers: never wrap those.
template <typename T>
using GPtr = std::unique_ptr<T, GObjectUnref>;

template <typename T>
GPtr<T> Adopt(T* p) {
  return GPtr<T>(p);
}

}  // namespace mw::mime

#endif  // MW_MIME_GOBJECT_H_
