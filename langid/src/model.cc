#include "langid/model.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <string>

#include "format.h"

namespace mw::langid {

using internal::Entry;
using internal::FileHeader;
using internal::LanguageRecord;

// The bytes of a model: either a read-only private mapping (unmapped in the
// destructor) or a string the model owns.
struct Model::Storage {
  const unsigned char* data = nullptr;
  std::size_t size = 0;
  void* mapping = nullptr;  // non-null: munmap(mapping, size) on destruction
  std::string owned;

  Storage() = default;
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;
  ~Storage() {
    if (mapping != nullptr) munmap(mapping, size);
  }
};

static_assert(PostingList::kPureBit == internal::kPureBit);

Model::Model(std::unique_ptr<Storage> storage) : storage_(std::move(storage)) {
  static std::atomic<std::uint64_t> last_id{0};
  id_ = last_id.fetch_add(1, std::memory_order_relaxed) + 1;
}
Model::Model(Model&&) noexcept = default;
Model& Model::operator=(Model&&) noexcept = default;
Model::~Model() = default;

namespace {

std::string FixedString(const char* s, std::size_t max) {
  std::size_t n = 0;
  while (n < max && s[n] != '\0') ++n;
  return std::string(s, n);
}

bool SectionFits(std::uint64_t offset, std::uint64_t count, std::uint64_t item,
                 std::uint64_t file_size) {
  if (offset % 8 != 0 || offset > file_size) return false;
  if (count != 0 && item > (file_size - offset) / count) return false;
  return offset + count * item <= file_size;
}

}  // namespace

Result<Model> Model::Validate(std::unique_ptr<Storage> storage,
                              std::string_view name) {
  const std::string where(name);
  auto corrupt = [&](const std::string& what) {
    return Fail(
        Error::Corrupt(where + ": not a usable langid dictionary: " + what));
  };
  const unsigned char* data = storage->data;
  const std::size_t size = storage->size;
  if (size < sizeof(FileHeader)) {
    return corrupt("truncated (" + std::to_string(size) +
                   " bytes, the header alone needs " +
                   std::to_string(sizeof(FileHeader)) + ")");
  }
  FileHeader h;
  std::memcpy(&h, data, sizeof h);
  if (std::memcmp(h.magic, internal::kMagic, sizeof h.magic) != 0) {
    return corrupt("bad magic (not built by `mailwave dict build`)");
  }
  if (h.version != internal::kVersion) {
    return corrupt("format version " + std::to_string(h.version) +
                   ", this program reads " +
                   std::to_string(internal::kVersion) +
                   " (rebuild it with mailwave dict build)");
  }
  if (h.header_size != sizeof(FileHeader)) return corrupt("bad header size");
  if (h.file_size != size) {
    return corrupt(
        std::string(h.file_size > size ? "truncated" : "trailing bytes") +
        " (" + std::to_string(size) + " bytes, header says " +
        std::to_string(h.file_size) + ")");
  }
  if (internal::FileChecksum(data, size) != h.checksum) {
    return corrupt("checksum mismatch (the file is damaged)");
  }
  // The checksum holds, so what follows only catches a builder bug or a forged
  // file; it keeps lookups in bounds whatever the bytes say.
  if (h.language_count == 0 || h.language_count > 256)
    return corrupt("bad language count");
  if (h.bucket_bits > 28) return corrupt("bad bucket count");
  const std::uint64_t buckets = (std::uint64_t{1} << h.bucket_bits) + 1;
  if (!SectionFits(h.languages_offset, h.language_count, sizeof(LanguageRecord),
                   size) ||
      !SectionFits(h.buckets_offset, buckets, 4, size) ||
      !SectionFits(h.entries_offset, h.entry_count, sizeof(Entry), size) ||
      !SectionFits(h.postings_offset, h.posting_count, 4, size)) {
    return corrupt("section outside the file");
  }
  Model model(std::move(storage));
  const unsigned char* base = model.storage_->data;
  model.buckets_ =
      reinterpret_cast<const std::uint32_t*>(base + h.buckets_offset);
  model.entries_ = base + h.entries_offset;
  model.postings_ =
      reinterpret_cast<const std::uint32_t*>(base + h.postings_offset);
  model.bucket_bits_ = h.bucket_bits;
  std::uint32_t previous = 0;
  for (std::uint64_t b = 0; b < buckets; ++b) {
    const std::uint32_t start = model.buckets_[b];
    if (start < previous || start > h.entry_count)
      return corrupt("bad bucket index");
    previous = start;
  }
  if (model.buckets_[buckets - 1] != h.entry_count)
    return corrupt("bad bucket index");
  const auto* entries = static_cast<const Entry*>(model.entries_);
  auto posting_ok = [&](std::uint32_t v) {
    return ((v >> 16) & 0xffu) < h.language_count;
  };
  for (std::uint32_t i = 0; i < h.entry_count; ++i) {
    const std::uint32_t p = entries[i].payload;
    if (p == internal::kCommonWord) continue;
    if (p & internal::kOutOfLine) {
      const std::uint64_t first = p & internal::kMaxPostingIndex;
      const std::uint64_t count = (p >> 24) & internal::kMaxPostings;
      if (count == 0 || first + count > h.posting_count)
        return corrupt("bad posting index");
      for (std::uint64_t k = first; k < first + count; ++k) {
        if (!posting_ok(model.postings_[k]))
          return corrupt("bad posting language");
      }
    } else if (!posting_ok(p)) {
      return corrupt("bad posting language");
    }
  }
  const auto* records =
      reinterpret_cast<const LanguageRecord*>(base + h.languages_offset);
  model.languages_.reserve(h.language_count);
  for (std::uint32_t i = 0; i < h.language_count; ++i) {
    LanguageInfo info;
    info.code = FixedString(records[i].code, sizeof records[i].code);
    info.script = FixedString(records[i].script, sizeof records[i].script);
    info.words = records[i].words;
    info.pure_words = records[i].pure_words;
    info.script_decided =
        (records[i].flags & internal::kLanguageScriptDecided) != 0;
    if (info.code.empty()) return corrupt("empty language code");
    if ((records[i].flags & internal::kLanguageVariant) != 0) {
      const std::uint32_t of = records[i].variant_of;
      if (of >= h.language_count || of == i ||
          (records[of].flags & internal::kLanguageVariant) != 0) {
        return corrupt("bad variant language");
      }
      info.variant_of = static_cast<int>(of);
      model.variants_.push_back(i);
    } else if ((records[i].flags & internal::kLanguagePair) != 0) {
      const std::uint32_t with = records[i].variant_of;
      if (with >= h.language_count || with == i ||
          (records[with].flags & internal::kLanguagePair) != 0) {
        return corrupt("bad pair language");
      }
      info.pair_with = static_cast<int>(with);
      info.pair_min = (records[i].flags >> internal::kPairMinShift) & 0xffu;
      model.pairs_.push_back(i);
    }
    model.languages_.push_back(std::move(info));
  }
  model.params_.max_words = h.max_words;
  model.params_.min_count = h.min_count;
  model.params_.max_languages = h.max_languages;
  model.params_.pure_share = h.pure_share;
  model.params_.min_share = h.min_share;
  model.params_.ngram_top = h.ngram_top;
  model.ngram_floor_ =
      h.ngram_top == 0 ? 0.0 : -static_cast<double>(h.ngram_floor_milli) / 1000;
  const PostingList letters =
      model.Lookup(std::string_view(&internal::kLetterKey, 1));
  for (std::uint32_t i = 0; i < letters.size(); ++i) {
    const std::uint32_t v = letters.encoded(i);
    model.letters_.emplace_back(static_cast<char32_t>(v & 0xffffu),
                                (v >> 16) & 0xffu);
  }
  std::sort(model.letters_.begin(), model.letters_.end());
  if (!model.letters_.empty()) {
    model.letters_lo_ = model.letters_.front().first;
    model.letters_hi_ = model.letters_.back().first;
  }
  return model;
}

Result<Model> Model::Open(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int e = errno;
    const std::string msg =
        path + ": cannot open langid dictionary: " + std::strerror(e);
    return Fail(e == ENOENT ? Error::NotFound(msg) : Error::Io(msg));
  }
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return Fail(Error::Io(path + ": not a regular file"));
  }
  auto storage = std::make_unique<Storage>();
  storage->size = static_cast<std::size_t>(st.st_size);
  if (storage->size > 0) {
    // MAP_POPULATE: validation reads every page anyway, and faulting them in
    // one call is several times faster than one fault per page (and the
    // milter's first messages do not pay for it).
    void* m = ::mmap(nullptr, storage->size, PROT_READ,
                     MAP_PRIVATE | MAP_POPULATE, fd, 0);
    const int e = errno;
    ::close(fd);
    if (m == MAP_FAILED)
      return Fail(Error::Io(path + ": cannot map: " + std::strerror(e)));
    storage->mapping = m;
    storage->data = static_cast<const unsigned char*>(m);
  } else {
    ::close(fd);
  }
  return Validate(std::move(storage), path);
}

Result<Model> Model::FromBytes(std::string bytes, std::string_view name) {
  auto storage = std::make_unique<Storage>();
  storage->owned = std::move(bytes);
  // std::string's buffer is allocated with operator new, aligned for any scalar
  // type, so the 8-byte aligned sections stay aligned.
  storage->data = reinterpret_cast<const unsigned char*>(storage->owned.data());
  storage->size = storage->owned.size();
  return Validate(std::move(storage), name);
}

std::uint64_t Model::KeyHash(std::string_view key) {
  return internal::Hash64(key);
}

PostingList Model::Lookup(std::string_view key) const {
  return LookupHashed(internal::Hash64(key));
}

void Model::PrefetchBucket(std::uint64_t h) const {
  if (storage_ == nullptr) return;
  const std::uint64_t bucket = bucket_bits_ == 0 ? 0 : h >> (64 - bucket_bits_);
  __builtin_prefetch(buckets_ + bucket);
}

void Model::PrefetchEntries(std::uint64_t h) const {
  if (storage_ == nullptr) return;
  const std::uint64_t bucket = bucket_bits_ == 0 ? 0 : h >> (64 - bucket_bits_);
  __builtin_prefetch(static_cast<const Entry*>(entries_) + buckets_[bucket]);
}

PostingList Model::LookupHashed(std::uint64_t h) const {
  if (storage_ == nullptr) return {};
  const std::uint64_t bucket = bucket_bits_ == 0 ? 0 : h >> (64 - bucket_bits_);
  const std::uint32_t fingerprint = static_cast<std::uint32_t>(h);
  const auto* entries = static_cast<const Entry*>(entries_);
  for (std::uint32_t i = buckets_[bucket], end = buckets_[bucket + 1]; i < end;
       ++i) {
    if (entries[i].fingerprint != fingerprint) continue;
    const std::uint32_t p = entries[i].payload;
    if (p == internal::kCommonWord) return PostingList(nullptr, 0, 0, true);
    if (p & internal::kOutOfLine) {
      return PostingList(postings_ + (p & internal::kMaxPostingIndex),
                         (p >> 24) & internal::kMaxPostings, 0);
    }
    return PostingList(nullptr, 1, p);
  }
  return {};
}

namespace {

// A key of the n-gram or variant tier: its prefix byte, then the n-gram
// (at most 31 bytes: five letters of four bytes fit), looked up.
PostingList LookupPrefixed(const Model& model, char prefix,
                           std::string_view ngram) {
  char key[32];
  if (ngram.size() + 1 > sizeof key) return {};
  key[0] = prefix;
  std::memcpy(key + 1, ngram.data(), ngram.size());
  return model.Lookup(std::string_view(key, ngram.size() + 1));
}

}  // namespace

PostingList Model::LookupNgram(std::string_view trigram) const {
  return LookupPrefixed(*this, internal::kNgramPrefix, trigram);
}

PostingList Model::LookupVariant(std::string_view ngram) const {
  const std::optional<std::uint64_t> h = VariantKeyHash(ngram);
  return h ? LookupHashed(*h) : PostingList();
}

std::optional<std::uint64_t> Model::VariantKeyHash(std::string_view ngram) {
  char key[32];
  if (ngram.size() + 1 > sizeof key) return std::nullopt;
  key[0] = internal::kVariantPrefix;
  std::memcpy(key + 1, ngram.data(), ngram.size());
  return KeyHash(std::string_view(key, ngram.size() + 1));
}

int Model::FindLanguage(std::string_view code) const {
  for (std::size_t i = 0; i < languages_.size(); ++i) {
    if (languages_[i].code == code) return static_cast<int>(i);
  }
  return -1;
}

namespace {
FileHeader HeaderOf(const unsigned char* data) {
  FileHeader h;
  std::memcpy(&h, data, sizeof h);
  return h;
}
}  // namespace

std::uint32_t Model::version() const {
  return HeaderOf(storage_->data).version;
}
std::uint64_t Model::file_size() const { return storage_->size; }
std::uint64_t Model::checksum() const {
  return HeaderOf(storage_->data).checksum;
}
std::uint32_t Model::entry_count() const {
  return HeaderOf(storage_->data).entry_count;
}
std::uint32_t Model::pure_count() const {
  return HeaderOf(storage_->data).pure_count;
}
std::uint32_t Model::shared_count() const {
  return HeaderOf(storage_->data).shared_count;
}
std::uint32_t Model::common_count() const {
  return HeaderOf(storage_->data).common_count;
}
std::uint32_t Model::posting_count() const {
  return HeaderOf(storage_->data).posting_count;
}

std::vector<std::string> DefaultDictionaryPaths() {
  std::vector<std::string> paths;
  char exe[4096];
  const ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0) {
    std::string dir(exe, static_cast<std::size_t>(n));
    dir.erase(
        dir.find_last_of('/') == std::string::npos ? 0 : dir.find_last_of('/'));
    paths.push_back(dir + "/../share/mailwave/langid.dict");
  }
  paths.push_back("/usr/local/share/mailwave/langid.dict");
  paths.push_back("/usr/share/mailwave/langid.dict");
  return paths;
}

Result<Model> OpenDictionary(const std::string& configured) {
  if (!configured.empty()) return Model::Open(configured);
  const std::vector<std::string> paths = DefaultDictionaryPaths();
  std::string searched;
  for (const std::string& p : paths) {
    if (::access(p.c_str(), F_OK) == 0) return Model::Open(p);
    searched += (searched.empty() ? "" : ", ") + p;
  }
  return Fail(Error::NotFound("no langid dictionary (looked for " + searched +
                              "); set [langid] dictionary or build one with "
                              "mailwave dict build"));
}

}  // namespace mw::langid
