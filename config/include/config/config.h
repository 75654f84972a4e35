// mailwave configuration: one TOML file, one table per module, every key
// declared once.
//
// Like Postfix's mail_params.h, each parameter has a name, a compiled-in
// default, bounds and a one-line meaning. The defaults are the member
// initialisers below; names, kinds, bounds and meanings are in one table per
// TOML table (config/src/params_<table>.cc, see params.h there). The file lists
// only overrides; `mailwave config --defaults` prints every key with its
// default,
// `--changed` the keys a file sets to something else.
//
// The settings structs here are plain values. Modules do not include this
// header: the programs (cli/, milter/) copy the fields each module needs into
// that module's own options struct.
//
// Thread-safety: Settings is a value; share it as std::shared_ptr<const
// Settings>.
#ifndef MW_CONFIG_CONFIG_H_
#define MW_CONFIG_CONFIG_H_

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "mw/result.h"

namespace mw::config {

inline constexpr std::string_view kDefaultPath = "/etc/mailwave/mailwave.toml";

// [mime]: limits on untrusted input. Past a limit the parser stops, keeps what
// it has and records a warning; it never spends unbounded time or memory.
struct MimeSettings {
  // Raw message bytes analysed.
  std::uint64_t max_bytes = 32ull << 20;
  // Decoded text kept across all parts.
  std::uint64_t max_text_bytes = 4ull << 20;
  // One header line (Postfix header_size_limit).
  std::uint64_t header_size_limit = 102400;
  // MIME depth (Postfix mime_nesting_limit).
  std::uint32_t nesting_limit = 100;
  // MIME parts visited.
  std::uint32_t max_parts = 1000;
  // HTML element depth walked.
  std::uint32_t html_nesting_limit = 512;
  // GMime's parser diagnostics as warnings (mime::Limits::parser_warnings).
  bool parser_warnings = false;

  bool operator==(const MimeSettings&) const = default;
};

// [fingerprint]: block lists, CTPH and SimHash (issue 3).
struct FingerprintSettings {
  // Bodies larger than this use paragraphs.
  std::uint64_t paragraph_threshold = 20ull << 10;
  // Bodies up to threshold·(1 + band) keep their line list too, and those
  // above the threshold but within the band their sentence list.
  double paragraph_band = 0.25;
  // Compare block lists only when counts are within this ratio.
  double block_count_ratio = 2.0;
  // Compare line lists only when both have at least this many lines.
  std::uint32_t min_paragraph_blocks = 8;
  // Block-list similarity at or above which it is a duplicate.
  double duplicate_threshold = 0.6;
  // P: CTPH signature edit rate below which messages are duplicates.
  double ctph_edit_rate = 0.05;
  // CTPH decides only when both bodies have at least this many bytes.
  std::uint64_t ctph_min_bytes = 512;
  // A CTPH candidate (edit rate below 3P) is a duplicate when the block
  // similarity is at least this and the SimHashes at most confirm_hamming
  // bits apart.
  double confirm_similarity = 0.4;
  std::uint32_t confirm_hamming = 12;
  // Containment path: duplicates when one block list contains at least this
  // share of the other's blocks in any order (counted and by bytes), their
  // total lengths are within containment_length_ratio, and the SimHashes are
  // at most containment_hamming bits apart; above 1 disables.
  double containment_threshold = 0.9;
  double containment_length_ratio = 1.3;
  std::uint32_t containment_hamming = 16;
  // Line lists take part in the containment path from this many lines.
  std::uint32_t containment_min_lines = 4;
  // Reordering path: duplicates when the two have the same words the same
  // number of times (at least reorder_min_words of them; 0 disables) and the
  // SimHashes are at most reorder_hamming bits apart.
  std::uint32_t reorder_min_words = 16;
  std::uint32_t reorder_hamming = 20;
  // Trailer path: duplicates when both begin with the same trailer_min_blocks
  // or more blocks (0 disables) and go on with at most trailer_max_bytes each,
  // no more than the shared part: one text with different footers.
  std::uint32_t trailer_min_blocks = 2;
  std::uint64_t trailer_max_bytes = 512;
  // Similarity is the smaller of counted and length-weighted block
  // similarity; false: counted only.
  bool weigh_blocks = true;
  // k: Hamming distance for near-duplicates.
  std::uint32_t simhash_max_distance = 3;
  // Words path (spun text, letters-only busters; fingerprint.h): word
  // sketches at least words_jaccard alike (above 1 disables), sampled word
  // sequences within words_edit_rate, at least words_min_words words each.
  double words_jaccard = 0.4;
  double words_edit_rate = 0.35;
  std::uint32_t words_min_words = 32;
  // Fold long random tokens before hashing.
  bool fold_hash_busters = true;
  bool fold_numbers = false;  // off: no gain on the evaluation, more FPs
  // Drop URL query strings and fragments.
  bool fold_urls = true;
  bool fold_emails = false;  // off: no gain on the evaluation, more FPs
  // "Dear John," -> "dear <name>,".
  bool fold_greetings = false;  // off: no gain on the evaluation

  bool operator==(const FingerprintSettings&) const = default;
};

// [langid]: language identification (issue 4).
struct LangidSettings {
  // Empty: <program dir>/../share/mailwave/langid.dict, then
  // /usr/local/share/mailwave/langid.dict, then
  // /usr/share/mailwave/langid.dict.
  std::string dictionary;
  // K1, K2, K_unknown and the thresholds were tuned on the development set
  // (docs/langid.md, "Tuning").
  double k1 = 4.0;
  double k2 = 0.5;
  double k_unknown = 2.0;
  // Fewer words than this: "und" ("und" means too little text).
  std::uint32_t min_words = 3;
  // Best score below this: "und" (or bilingual).
  double min_score = 5.0;
  // The second language of a bilingual verdict needs at least this score.
  double bilingual_min_score = 10.0;
  // In a text of several lines, each language of a bilingual verdict must win
  // lines holding at least this share of the words.
  double bilingual_min_lines = 0.3;
  // In a text of several paragraphs, each language of a bilingual verdict must
  // win paragraphs holding at least this share of the words (above 1: off).
  double bilingual_min_paragraphs = 0.1;
  // Share of each unknown word that the character-trigram tier turns into
  // tier-2 evidence; 0 = the two-tier dictionaries alone.
  double ngram_weight = 0.5;
  // Languages whose score is at least this share of the best's are close
  // (relatives such as es/gl, cs/sk); the strength of their words decides
  // between them (langid::Options::close_ratio). 1 = off.
  double close_ratio = 0.3;

  bool operator==(const LangidSettings&) const = default;
};

// [pipeline]: the work budget of one message's analysis (issue 10).
struct PipelineSettings {
  // CPU time of the analysis (parse, normalise, language, fingerprint); past
  // it the analysis stops with what it has and says so ("budget").
  std::chrono::milliseconds max_cpu{500};
  // Wall-clock time of the whole check, store included.
  std::chrono::milliseconds max_wall{2000};

  bool operator==(const PipelineSettings&) const = default;
};

// [store]: the store of recent mail (hashes only), in SQLite or Redis.
struct StoreSettings {
  // "sqlite" or "redis"; the programs refuse anything else at start.
  std::string backend = "sqlite";
  // The SQLite file; its directory holds the site secret for both backends.
  std::string path = "/var/lib/mailwave/mailwave.db";
  // Redis: "unix:/path", "tcp://host:port" or "tls://host:port", the database
  // number, the ACL user and the file holding its password (empty: no AUTH),
  // the key prefix (several sites share a server), and the connect and command
  // timeout.
  std::string redis = "unix:/run/redis/redis.sock";
  std::uint32_t redis_db = 0;
  std::string redis_user;
  std::string redis_password_file;
  // TLS ("tls://" addresses): the CA file (empty: the system's), the client
  // certificate and key (empty: none) and the name the server's certificate
  // must carry (empty: the host).
  std::string redis_tls_ca;
  std::string redis_tls_cert;
  std::string redis_tls_key;
  std::string redis_tls_server_name;
  std::vector<std::string> redis_cluster;
  std::string redis_prefix = "mailwave";
  std::chrono::milliseconds redis_timeout{200};
  // Messages older than this are pruned.
  std::chrono::milliseconds retention = std::chrono::hours(24 * 7);
  // How long a statement waits for another connection's lock.
  std::chrono::milliseconds busy_timeout{200};
  // Candidates compared per message, and stored messages read per index key.
  std::uint32_t max_candidates = 16;
  std::uint32_t max_per_key = 32;
  // Messages removed per pruning transaction.
  std::uint32_t prune_batch = 500;
  // SQLite group commit: how long a recorded message may wait for the commit
  // it shares with the messages recorded meanwhile (0: one commit each).
  std::chrono::milliseconds commit_delay{20};

  bool operator==(const StoreSettings&) const = default;
};

// [wave]: when a cluster of near-duplicates is a spam wave.
struct WaveSettings {
  // Members inside `window` for a cluster to be a wave.
  std::uint32_t min_size = 5;
  std::chrono::milliseconds window = std::chrono::hours(1);
  // File that receives one JSON line when a cluster becomes a wave; empty:
  // none.
  std::string events;
  // Authentication-Results authserv-ids written by the site's own
  // authentication milter (OpenDKIM, OpenDMARC, rspamd): only those, above
  // the first Received, count (sender/identity.h). Empty: trust none.
  std::vector<std::string> trusted_authserv_ids;
  // The allow list (sender/allow.h); empty: none.
  std::string allow;
  // An authenticated identity whose cluster came from more client networks
  // than this is a spread wave.
  std::uint32_t bulk_networks = 3;
  // What a message of a spread wave gets beyond the headers: "header",
  // "quarantine", "reject" or "tempfail".
  std::string action = "header";
  // How long after its first member a spread wave is "young": with action
  // "tempfail" its copies get 451 until then, and are accepted (tagged)
  // after.
  std::chrono::milliseconds young = std::chrono::minutes(20);
  // Normalised bodies shorter than this are neither looked up nor recorded:
  // empty and near-empty bodies (a read receipt, a bare attachment) are not
  // duplicates of each other.
  std::uint64_t min_body = 16;

  bool operator==(const WaveSettings&) const = default;
};

// [milter]: the daemon mailwave-milter (docs/milter.md). A message is read
// up to [mime] max_bytes; past that it is analysed as far as it was read.
struct MilterSettings {
  // Where the milter listens: "unix:/path", "inet:port@host", "inet6:...".
  std::string socket = "unix:/run/mailwave/milter.sock";
  // What a message gets when the milter itself fails (an exception, no
  // memory): "accept" (pass untagged) or "tempfail" (the MTA retries later).
  // mailwave-milter checks the value at start.
  std::string on_error = "accept";
  // listen(2) backlog of the milter socket.
  std::uint32_t backlog = 128;
  // Octal permission bits of a unix socket ("0660": owner and group may
  // connect); empty keeps what the umask gave.
  std::string socket_mode = "0660";
  // Started as root: the user (and its groups) the daemon becomes once the
  // socket is bound and the pid file written; `group`, when set, replaces
  // that user's primary group and owns the unix socket (empty: the socket
  // gets group postfix when that exists). Empty user: stay who we are (a
  // warning when that is root).
  std::string user;
  std::string group;
  // Without -f: the daemon writes its pid here; empty: no pid file.
  std::string pid_file = "/run/mailwave/mailwave-milter.pid";
  // After SIGTERM: how long messages in flight may take to finish before
  // the daemon exits anyway.
  std::chrono::milliseconds drain{10000};
  // Clients (addresses or prefixes, space or comma separated) whose
  // X-Mailwave-* headers are verdicts of an earlier mailwave, kept as they
  // are; empty: every incoming one is a forgery and deleted.
  std::string trusted_relays;
  // The engine (docs/milter.md, "Engine"). Threads analysing messages at end
  // of body; 0: one per core.
  std::uint32_t threads = 0;
  // How long a message's analysis may take from end of body before it gets
  // on_error's answer (the late result is dropped); well under Postfix's
  // milter_content_timeout (300s). Also the bound of the queue: a message
  // that would wait longer is answered on_error at once (shed).
  std::chrono::milliseconds deadline{30000};
  // MTA connections open at once; more are closed at once.
  std::uint32_t max_connections = 1000;
  // Bytes of messages held in memory, all connections together; a message
  // that would pass it keeps no more and is analysed as far as it was kept.
  std::uint64_t max_buffered = 256ull << 20;
  // A connection silent this long between messages is closed.
  std::chrono::milliseconds idle_timeout{300000};
  // A connection silent this long inside a message is closed.
  std::chrono::milliseconds read_timeout{60000};

  bool operator==(const MilterSettings&) const = default;
};

// [metrics]: the Prometheus endpoint of mailwave-milter (docs/milter.md,
// "Metrics").
struct MetricsSettings {
  // "host:port" with an IP literal host ("127.0.0.1:9477", "[::1]:9477");
  // port 0 takes any free port (the log names it); empty: no endpoint.
  // mailwave-milter checks the form at start.
  std::string listen = "127.0.0.1:9477";

  bool operator==(const MetricsSettings&) const = default;
};

// [gpu]: the comparison engine (gpu/, docs/gpu.md): every message the index
// left without a match is scored against the whole window of recent mail.
struct GpuSettings {
  // "auto" (CUDA when built and a device answers, else the CPU), "cpu",
  // "cuda" (fails at start without a device). Checked at start.
  std::string backend = "auto";
  // Whether the milter scores messages against the window at all.
  bool window = true;
  // The window holds the newest messages of the store, at most this many.
  // The engine's work per queried message grows with it: ~1 ms per 100,000
  // on two CPU cores (docs/gpu.md).
  std::uint32_t window_max = 100000;
  // Micro-batching of the milter's queries: a batch runs when it holds
  // batch_size queries or batch_deadline after its first one; 0: as soon as
  // the engine is free, with every query that arrived while it was busy.
  std::uint32_t batch_size = 64;
  std::chrono::milliseconds batch_deadline{0};
  // How long a message waits for the engine's answer at most; past it the
  // message goes on without the window's answer.
  std::chrono::milliseconds budget{50};
  // CPU backend threads; 0: every core.
  std::uint32_t threads = 0;

  bool operator==(const GpuSettings&) const = default;
};

struct Settings {
  MimeSettings mime;
  FingerprintSettings fingerprint;
  LangidSettings langid;
  PipelineSettings pipeline;
  StoreSettings store;
  WaveSettings wave;
  MilterSettings milter;
  MetricsSettings metrics;
  GpuSettings gpu;

  bool operator==(const Settings&) const = default;
};

// Parses TOML text. `source_name` is the name used in errors, normally the
// file's path. Unknown tables or keys, wrong types and out-of-range values are
// errors whose message is one line of the form "<source>:<line>: <table>.<key>:
// <reason>". Keys absent from the text keep their defaults. The first problem
// in file order is reported; TOML syntax errors read
// "<source>:<line>: <toml++ description>". Unknown keys name the closest known
// key when one is near ("... unknown key (did you mean mime.max_parts?)").
// Errors have code kInvalidArgument.
Result<Settings> ParseToml(std::string_view text, std::string_view source_name);

// Reads and parses the file at `path`. A missing file is a kNotFound error, an
// unreadable one a kIo error, both "<path>: <reason>".
Result<Settings> LoadFile(const std::string& path);

// What the programs do with `-c`: when `path` is empty, loads `default_path` if
// it exists and returns the built-in defaults otherwise (a default file that
// exists but cannot be read is an error, not silently ignored); when `path` is
// given, it must exist.
Result<Settings> Load(const std::string& path, const std::string& default_path =
                                                   std::string(kDefaultPath));

// TOML listing every table and key with its default value, its meaning and its
// bounds as comments (`mailwave config --defaults`, like `postconf -d`).
// ParseToml reads it back as the defaults.
std::string RenderDefaults();

// The same list with every assignment commented out, under a header that
// explains the file: the documented example config/mailwave.toml (`mailwave
// config --example`). A file that lists only overrides lets later versions
// change defaults; this one documents them.
std::string RenderExample();

// TOML listing only the keys whose value differs from the default, without
// comments
// (`mailwave config --changed`, like `postconf -n`); empty when nothing
// differs.
std::string RenderChanged(const Settings& settings);

// The man page mailwave.toml(5), as roff: every table and key with its
// default, meaning and bounds, from the same declarations as RenderDefaults
// (`mailwave config --man`; the build installs it).
std::string RenderManPage(std::string_view version);

}  // namespace mw::config

#endif  // MW_CONFIG_CONFIG_H_
