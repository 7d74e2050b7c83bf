// Numbers as text for summaries, reports and messages: printf's %.Nf, %.Ne and %.Ng, one buffer for every caller.
#pragma once

#include <cstdio>
#include <string>

namespace graphsim {

enum class NumberStyle { Fixed, Scientific, General };

inline std::string numberText(double v, NumberStyle style, int precision) {
  char text[64];
  switch (style) {
  case NumberStyle::Fixed: std::snprintf(text, sizeof text, "%.*f", precision, v); break;
  case NumberStyle::Scientific: std::snprintf(text, sizeof text, "%.*e", precision, v); break;
  case NumberStyle::General: std::snprintf(text, sizeof text, "%.*g", precision, v); break;
  }
  return text;
}

inline std::string fixedText(double v, int decimals) { return numberText(v, NumberStyle::Fixed, decimals); }
inline std::string scientificText(double v, int digits = 3) { return numberText(v, NumberStyle::Scientific, digits); }
inline std::string generalText(double v, int digits = 6) { return numberText(v, NumberStyle::General, digits); }

} // namespace graphsim
