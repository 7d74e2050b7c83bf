// A parameter row's slider (compute/param_table.h) in a scene's Parameters section: the row's label, range, scale and
// format; a vector row edits its three components, or the one of slider.axis. The caller records it as
// "param:<slider.id>" and applies what changed.
#pragma once

#include <imgui.h>

#include <algorithm>
#include <optional>
#include <string>

#include "compute/param_table.h"

namespace graphsim::app {

template <class P>
void drawParamSlider(const ParamRow<P>& row, P& p) {
  const auto& s = row.slider;
  // AlwaysClamp: a value typed with Ctrl+click stays in the slider's range too.
  const ImGuiSliderFlags flags =
      ImGuiSliderFlags_AlwaysClamp | (s.scale == SliderScale::Log ? ImGuiSliderFlags_Logarithmic : 0);
  const std::string label(s.label);
  const float hi = s.hiOf != nullptr ? s.hiOf(p) : s.hi;
  if (int* i = row.integer(p)) {
    ImGui::SliderInt(label.c_str(), i, static_cast<int>(s.lo), static_cast<int>(hi), s.format, flags);
  } else if (row.components() == 3 && s.axis < 0) {
    ImGui::SliderFloat3(label.c_str(), row.floats(p), s.lo, hi, s.format, flags);
  } else {
    ImGui::SliderFloat(label.c_str(), row.floats(p) + std::max(s.axis, 0), s.lo, hi, s.format, flags);
  }
  if (!row.help.empty() && ImGui::IsItemHovered())
    ImGui::SetTooltip("%.*s", static_cast<int>(row.help.size()), row.help.data());
}

// A structural slider (a count, substeps): applied when released, not on every drag step (each is a graph update or
// a reset). edit: the value while dragged, 0 showing `current`. Returns the value to apply, on release.
inline std::optional<int> drawReleasedSlider(const char* label, int& edit, int current, int lo, int hi,
                                             ImGuiSliderFlags flags = 0) {
  int value = edit > 0 ? edit : current;
  if (ImGui::SliderInt(label, &value, lo, hi, "%d", flags)) edit = value;
  if (!ImGui::IsItemDeactivatedAfterEdit()) return std::nullopt;
  edit = 0;
  return value;
}

} // namespace graphsim::app
