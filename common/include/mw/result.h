// mw::Error and mw::Result<T>: how every mailwave module reports expected
// failures.
//
// Follows leveldb's Status: few codes, a message, ToString(). Result<T> is
// tl::expected<T, Error>, so a later move to C++23 std::expected is a one-line
// swap. Errors are values; nothing in the pipeline throws for control flow.
//
// Thread-safety: value types, safe to copy between threads.
#ifndef MW_RESULT_H_
#define MW_RESULT_H_

#include <string>
#include <string_view>
#include <tl/expected.hpp>
#include <utility>

namespace mw {

class [[nodiscard]] Error {
 public:
  enum class Code {
    kInvalidArgument,  // bad input from a user: config file, command line
    kCorrupt,      // data that should be well-formed is not (dictionary file,
                   // store)
    kNotFound,     // a file or record that should exist does not
    kIo,           // the operating system refused a read or write
    kLimit,        // a configured limit was hit and nothing usable remains
    kUnavailable,  // a resource is busy or absent (SQLite BUSY, no GPU)
    kConflict,     // what a call was based on changed meanwhile (another
                   // writer): read again, decide again, retry
    kInternal,     // a bug: an invariant did not hold
  };

  Error(Code code, std::string message)
      : code_(code), message_(std::move(message)) {}

  static Error InvalidArgument(std::string m) {
    return {Code::kInvalidArgument, std::move(m)};
  }
  static Error Corrupt(std::string m) { return {Code::kCorrupt, std::move(m)}; }
  static Error NotFound(std::string m) {
    return {Code::kNotFound, std::move(m)};
  }
  static Error Io(std::string m) { return {Code::kIo, std::move(m)}; }
  static Error Limit(std::string m) { return {Code::kLimit, std::move(m)}; }
  static Error Unavailable(std::string m) {
    return {Code::kUnavailable, std::move(m)};
  }
  static Error Conflict(std::string m) {
    return {Code::kConflict, std::move(m)};
  }
  static Error Internal(std::string m) {
    return {Code::kInternal, std::move(m)};
  }

  Code code() const { return code_; }
  // The message alone, already in the one-line form users see
  // ("mailwave.toml:12: mime.max_bytes: must be between 1 KiB and 1 GiB").
  const std::string& message() const { return message_; }
  // "<code name>: <message>", for logs.
  std::string ToString() const;

 private:
  Code code_;
  std::string message_;
};

template <typename T>
using Result = tl::expected<T, Error>;

// Shorthand for returning an error from a function that returns Result<T>.
inline tl::unexpected<Error> Fail(Error e) {
  return tl::unexpected<Error>(std::move(e));
}

}  // namespace mw

#endif  // MW_RESULT_H_
