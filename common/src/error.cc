#include "mw/result.h"

namespace mw {

std::string Error::ToString() const {
  const char* name = "internal";
  switch (code_) {
    case Code::kInvalidArgument:
      name = "invalid argument";
      break;
    case Code::kCorrupt:
      name = "corrupt";
      break;
    case Code::kNotFound:
      name = "not found";
      break;
    case Code::kIo:
      name = "I/O error";
      break;
    case Code::kLimit:
      name = "limit";
      break;
    case Code::kUnavailable:
      name = "unavailable";
      break;
    case Code::kConflict:
      name = "conflict";
      break;
    case Code::kInternal:
      name = "internal";
      break;
  }
  return std::string(name) + ": " + message_;
}

}  // namespace mw
