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

// Reads a whole file, or standard input for "-". Errors name the file and the
// OS reason.
// Reads FILE, or standard input for "-", up to max_bytes (the rest is left
// unread). Errors name the file: "PATH: is a directory", "PATH: <strerror>".
Result<std::string> ReadInput(const std::string& path, std::uint64_t max_bytes);
Result<std::string> ReadInput(const std::string& path);

// Loads the configuration named by -c (or the default), see config::Load.
Result<config::Settings> LoadSettings(const GlobalOptions& global);

// Appends `s` to `out` as a JSON string literal (quotes included). Invalid
// UTF-8 bytes are replaced by U+FFFD so the output is always valid JSON.
void AppendJsonString(std::string& out, std::string_view s);
std::string JsonString(std::string_view s);

// A JSON number for `v`: shortest round-trip form, "null" for NaN and
// infinities.
std::string JsonNumber(double v);

// Prints "mailwave <command>: <message>" on stderr and returns `status`.
int Complain(std::string_view command, std::string_view message, int status);

// True when `arg` is -h or --help.
bool IsHelp(std::string_view arg);

}  // namespace mw::cli

#endif  // MW_CLI_UTIL_H_
