# Writes ${OUT}: the scene presets (${PRESETS}, '|'-separated JSON files) as string literals, so the binary runs
# from any directory. Scene name = file name without .json.
set(body "// Generated from assets/scenes by app/cli/embed_presets.cmake. Do not edit.\n#pragma once\n#include <string_view>\n")
string(APPEND body "namespace graphsim::app {\nstruct EmbeddedPreset { std::string_view name; std::string_view json; };\n")
string(APPEND body "inline constexpr EmbeddedPreset kEmbeddedPresets[] = {\n")
string(REPLACE "|" ";" PRESETS "${PRESETS}")
foreach(file IN LISTS PRESETS)
  get_filename_component(name ${file} NAME_WE)
  file(READ ${file} text)
  string(APPEND body "  {\"${name}\", R\"__json(${text})__json\"},\n")
endforeach()
string(APPEND body "};\n} // namespace graphsim::app\n")
file(WRITE ${OUT} "${body}")
