// Helpers shared by the subcommands of `mailwave`.
#ifndef MW_CLI_UTIL_H_
#define MW_CLI_UTIL_H_

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "cli/command.h"
#include "config/config.h"
#include "mime/message.h"
#include "mw/result.h"

namespace mw::cli {

// Reads FILE, or standard input for "-", up to max_bytes (the rest is left
// unread). Errors name the file: "PATH: is a directory", "PATH: <strerror>".
// Commands that read messages pass [mime] max_bytes; the unbounded form is for
// `dict build`, whose word lists are not mail.
Result<std::string> ReadInput(const std::string& path, std::uint64_t max_bytes);
Result<std::string> ReadInput(const std::string& path);

// Reads FILE ("-": standard input) up to [mime] max_bytes as an RFC 822
// message, parsed and normalised as the milter does; with `plain_text`, as
// UTF-8 text normalised by mime::NormaliseText (the subject is then empty).
// Every error names the file.
Result<mime::Text> ReadText(const std::string& path, bool plain_text,
                            const config::Settings& settings);

// Loads the configuration named by -c (or the default), see config::Load.
Result<config::Settings> LoadSettings(const GlobalOptions& global);

// The one way a configuration fails: "mailwave: FILE:LINE: key: reason" on
// stderr, exit status kExitUsage, whatever the command and whatever the cause
// (unreadable file or invalid value).
int ConfigFailure(const Error& error);

// True for an argument that looks like an option ("-x", "--x"); "-" (standard
// input) is not one. After "--" no argument is an option; every command
// handles "--" itself.
bool IsOption(std::string_view arg);

// Makes std::cout write through a buffer that remembers why a write failed;
// main() calls it first. Commands print with std::cout only (not stdio).
void InstallStdout();

// Flushes standard output and says whether it failed: a full disk, a closed
// pipe (SIGPIPE is ignored, so a write gets EPIPE). Commands that print as
// they go call it to stop early; main() calls OutputStatus after every
// command, so a write error is always one line and exit status 1.
bool OutputFailed();

// kExitOk when standard output was written, else prints "mailwave COMMAND:
// standard output: REASON" and returns kExitFailure.
int OutputStatus(std::string_view command);

// Appends `s` to `out` as a JSON string literal (quotes included). Invalid
// UTF-8 bytes are replaced by U+FFFD so the output is always valid JSON.
void AppendJsonString(std::string& out, std::string_view s);
std::string JsonString(std::string_view s);
// JsonString(s), or null when `s` is empty: an absent value is null in every
// JSON output of mailwave, never "".
std::string JsonStringOrNull(std::string_view s);

// A JSON number for `v`: shortest round-trip form, always with a fraction or
// an exponent ("1.0", not "1") so a fraction stays a fraction; "null" for NaN
// and infinities.
std::string JsonNumber(double v);

// Prints "mailwave <command>: <message>" on stderr and returns `status`.
int Complain(std::string_view command, std::string_view message, int status);

// True when `arg` is -h or --help.
bool IsHelp(std::string_view arg);

}  // namespace mw::cli

#endif  // MW_CLI_UTIL_H_
