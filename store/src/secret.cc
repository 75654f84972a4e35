#include "secret.h"

#include <fcntl.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "mw/fd.h"

namespace mw::store {
namespace {

using mw::Fd;

Error Errno(const std::string& what) {
  return Error::Io(what + ": " + std::strerror(errno));
}

Result<Secret> Read(const std::string& path) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return Fail(Errno("store: secret " + path));
  // One byte more than expected, to tell a longer file from a right one.
  std::uint8_t buf[kSecretBytes + 1];
  std::size_t got = 0;
  while (got < sizeof(buf)) {
    const ssize_t n = ::read(fd.get(), buf + got, sizeof(buf) - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Fail(Errno("store: secret " + path));
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  if (got != kSecretBytes) {
    return Fail(Error::Corrupt("store: secret " + path + " holds " +
                               std::to_string(got) +
                               (got > kSecretBytes ? "+" : "") +
                               " bytes, not " + std::to_string(kSecretBytes)));
  }
  std::array<std::uint8_t, kSecretBytes> key;
  std::memcpy(key.data(), buf, kSecretBytes);
  return Secret(key);
}

// Writes a new secret to a private temporary file (O_EXCL, 0600) and links
// it to `path`, so that `path` appears whole or not at all and a second
// process starting at the same moment reads the first one's secret instead
// of a half-written file. Returns false (and no error) when `path` appeared
// meanwhile.
Result<bool> Create(const std::string& path) {
  std::array<std::uint8_t, kSecretBytes> key;
  if (RAND_bytes(key.data(), static_cast<int>(key.size())) != 1) {
    return Fail(Error::Internal("store: no random bytes for the secret"));
  }
  const std::string tmp = path + ".new-" + std::to_string(::getpid());
  ::unlink(tmp.c_str());  // left by a process of ours that died here
  {
    Fd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
    if (fd.get() < 0) return Fail(Errno("store: secret " + tmp));
    std::size_t put = 0;
    while (put < key.size()) {
      const ssize_t n = ::write(fd.get(), key.data() + put, key.size() - put);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        const Error e = Errno("store: secret " + tmp);
        ::unlink(tmp.c_str());
        return Fail(e);
      }
      put += static_cast<std::size_t>(n);
    }
    if (::fsync(fd.get()) != 0) {
      const Error e = Errno("store: secret " + tmp);
      ::unlink(tmp.c_str());
      return Fail(e);
    }
  }
  const int linked = ::link(tmp.c_str(), path.c_str());
  const int link_errno = errno;
  ::unlink(tmp.c_str());
  if (linked == 0) return true;
  if (link_errno == EEXIST) return false;
  errno = link_errno;
  return Fail(Errno("store: secret " + path));
}

}  // namespace

std::int64_t Secret::Hash(std::string_view tag, std::string_view value) const {
  std::string data;
  data.reserve(tag.size() + 1 + value.size());
  data.append(tag);
  data.push_back('\0');  // "ab"+"c" and "a"+"bc" hash apart
  data.append(value);
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int mac_len = 0;
  HMAC(EVP_sha256(), key_.data(), static_cast<int>(key_.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), mac,
       &mac_len);
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | mac[i];
  return static_cast<std::int64_t>(v);
}

Result<Secret> LoadOrCreateSecret(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    if (errno != ENOENT) return Fail(Errno("store: secret " + path));
    auto created = Create(path);
    if (!created) return Fail(created.error());
  }
  return Read(path);
}

std::string HashHex(std::int64_t hash) {
  static constexpr char kDigits[] = "0123456789abcdef";
  const auto v = static_cast<std::uint64_t>(hash);
  std::string out(16, '0');
  for (int i = 0; i < 16; ++i) out[15 - i] = kDigits[(v >> (4 * i)) & 0xf];
  return out;
}

}  // namespace mw::store
