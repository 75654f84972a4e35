// The baseline the benchmarks measure mailwave against in the same run:
// GMime's bare parse of one message (construct it, decode every leaf part),
// with nothing of mailwave's own. One definition, so every benchmark's ratio
// is against the same work.
#ifndef MW_BENCH_GMIME_BASELINE_H_
#define MW_BENCH_GMIME_BASELINE_H_

#include <gmime/gmime.h>

#include <cstddef>
#include <string_view>

namespace mw::bench {

inline void DecodeLeaf(GMimeObject*, GMimeObject* part, gpointer data) {
  if (!GMIME_IS_PART(part)) return;
  GMimeDataWrapper* w = g_mime_part_get_content(GMIME_PART(part));
  if (w == nullptr) return;
  GMimeStream* mem = g_mime_stream_mem_new();
  g_mime_data_wrapper_write_to_stream(w, mem);
  *static_cast<std::size_t*>(data) += g_mime_stream_length(mem);
  g_object_unref(mem);
}

// Parses `message` with GMime and decodes its leaves; returns the decoded
// bytes (so that the work cannot be optimised away).
inline std::size_t GMimeBareParse(std::string_view message) {
  std::size_t decoded = 0;
  GMimeStream* stream =
      g_mime_stream_mem_new_with_buffer(message.data(), message.size());
  GMimeParser* parser = g_mime_parser_new_with_stream(stream);
  GMimeMessage* msg = g_mime_parser_construct_message(parser, nullptr);
  if (msg != nullptr) {
    g_mime_message_foreach(msg, DecodeLeaf, &decoded);
    g_object_unref(msg);
  }
  g_object_unref(parser);
  g_object_unref(stream);
  return decoded;
}

}  // namespace mw::bench

#endif  // MW_BENCH_GMIME_BASELINE_H_
