// Text a user typed (a flag's value, a path, a scene-file key), made safe to echo in a one-line message: control
// characters escaped, so that a newline cannot split the message and an ESC sequence cannot drive the terminal,
// and long values clipped, saying how long they were. Header-only: the output writer (app/io, its own target) uses
// it too.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace graphsim::app {

namespace user_text_detail {

// The length of the valid UTF-8 sequence at text[i] (2..4), or 0 when the bytes there are not one.
inline std::size_t utf8SequenceLength(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  const std::size_t n = lead >= 0xc2 && lead <= 0xdf   ? 2
                        : lead >= 0xe0 && lead <= 0xef ? 3
                        : lead >= 0xf0 && lead <= 0xf4 ? 4
                                                       : 0;
  if (n == 0 || i + n > text.size()) return 0;
  for (std::size_t k = 1; k < n; ++k)
    if ((byte(i + k) & 0xc0) != 0x80) return 0;
  if (n == 2 && lead == 0xc2 && byte(i + 1) < 0xa0) return 0; // U+0080..U+009F: the C1 controls (CSI among them)
  return n;
}

inline void appendHex(std::string& out, unsigned char c) {
  constexpr const char* kDigits = "0123456789abcdef";
  out += "\\x";
  out += kDigits[c >> 4];
  out += kDigits[c & 0xf];
}

} // namespace user_text_detail

// Control characters as C escapes (\n, \t, \r, \x1b, ...; C1 controls and bytes that are not UTF-8 as \xHH), the
// rest as it was.
inline std::string escapeControls(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
      ++i;
    } else if (const std::size_t n = c >= 0x80 ? user_text_detail::utf8SequenceLength(text, i) : 0; n > 0) {
      out.append(text.substr(i, n));
      i += n;
    } else {
      if (c == '\n') {
        out += "\\n";
      } else if (c == '\t') {
        out += "\\t";
      } else if (c == '\r') {
        out += "\\r";
      } else {
        user_text_detail::appendHex(out, c);
      }
      ++i;
    }
  }
  return out;
}

// The value as a message shows it: escaped (above), and when longer than `limit` characters once escaped, its first
// ones and "... (N characters)", N the length typed. An empty value is shown as "" (quoted), so it is visible.
inline constexpr std::size_t kShownTextLimit = 80;
// Paths are clipped later: a user needs to see which file, and test and build trees nest deep.
inline constexpr std::size_t kShownPathLimit = 300;
inline std::string shownText(std::string_view text, std::size_t limit = kShownTextLimit) {
  if (text.empty()) return "\"\"";
  std::string escaped = escapeControls(text); // not const: returned by move
  if (escaped.size() <= limit) return escaped;
  // Cut before `limit - 3` without splitting an escape or a UTF-8 sequence: back up to a character's first byte.
  std::size_t cut = limit - 3;
  while (cut > 0 && (static_cast<unsigned char>(escaped[cut]) & 0xc0) == 0x80) --cut;
  const std::size_t slash = escaped.rfind('\\', cut);
  if (slash != std::string::npos && cut - slash < 4) cut = slash;
  return escaped.substr(0, cut) + "... (" + std::to_string(text.size()) + " characters)";
}

// A file as a message names it: the flag (or command) that gave it, then its path shown as above ("--config a.json").
inline std::string fileNamedBy(std::string_view flag, std::string_view path) {
  return std::string(flag) + " " + shownText(path, kShownPathLimit);
}

// A whole message that may hold user text anywhere (CLI11's, or one built before it reached us): control characters
// escaped, and every run of non-blank characters longer than kShownPathLimit clipped as shownText does. Values
// already passed through shownText stay as they are.
inline std::string oneLineMessage(std::string_view message) {
  const std::string escaped = escapeControls(message);
  std::string out;
  std::size_t start = 0;
  while (start < escaped.size()) {
    const std::size_t blank = escaped.find(' ', start);
    const std::size_t end = blank == std::string::npos ? escaped.size() : blank;
    const std::string_view word = std::string_view(escaped).substr(start, end - start);
    out += word.size() > kShownPathLimit ? shownText(word, kShownPathLimit) : std::string(word);
    if (blank != std::string::npos) out += ' ';
    start = end + 1;
  }
  return out;
}

} // namespace graphsim::app
