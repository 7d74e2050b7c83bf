#!/usr/bin/env bash
# Lists the functions longer than N lines (default 80) in the C++/CUDA sources of app/, compute/ and render/
# (or the files or folders given), longest first: "LINES  FILE:FIRST-LAST  NAME". Exits 0 either way: a list to
# read, not a gate.
#
#   scripts/long-functions.sh                 the product code, N = 80
#   scripts/long-functions.sh --max 60 tests  another bound, other folders
#
# How it finds them (a heuristic, no compiler): comments, string and character literals (raw strings included) are
# blanked; then every '{' outside a function body whose preceding text (since the last ';', '{' or '}') ends in a
# parameter list, optionally followed by qualifiers (const, noexcept, override, '-> T', ...) or a constructor's
# initialiser list, opens a function body, which lasts to its matching '}'. Lambdas and blocks inside a function
# count towards it; a member function defined in its class counts on its own. The length is counted from the line
# where the signature starts to the closing brace, blank and comment lines included.
#
# Limits: preprocessor branches (#if/#else) that each open a brace unbalance the count; a macro that expands to a
# function signature (TEST(...) is recognised by its shape, and counts as a function); a brace-initialised member in
# a constructor's initialiser list written without a space before '{' is taken as initialisation, but other
# unusual spellings (a lambda at namespace scope assigned with '=', a brace in a default argument) may be missed or
# misnamed. Only .cpp, .cc, .cu, .h, .hpp and .cuh files are read.
set -euo pipefail
cd "$(dirname "$0")/.."

max=80
paths=()
while [ $# -gt 0 ]; do
  case "$1" in
    --max) max="$2"; shift 2 ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) paths+=("$1"); shift ;;
  esac
done
[ ${#paths[@]} -gt 0 ] || paths=(app compute render)

find "${paths[@]}" -type f \( -name '*.cpp' -o -name '*.cc' -o -name '*.cu' -o -name '*.h' -o -name '*.hpp' \
  -o -name '*.cuh' \) | LC_ALL=C sort | while read -r file; do
  awk -v max="$max" -v file="$file" '
    # The text before a "{": does it open a function body?
    function isFunction(h,    t) {
      t = h
      gsub(/[ \t]+/, " ", t)
      sub(/^ /, "", t); sub(/ $/, "", t)
      if (t !~ /\)/) return 0
      if (t ~ /^(if|for|while|switch|catch|do|else|try|return|namespace|class|struct|union|enum)([ (]|$)/) return 0
      if (t ~ /^(template ?<.*> ?)?(class|struct|union|enum) /) return 0
      if (t ~ /^else /) return 0
      # ") [qualifiers]" or ") -> T" or a constructor initialiser list ") : a(x), b(y)".
      if (t ~ /\)( ?(const|noexcept|override|final|mutable|volatile|&|&&|throw ?\(\)))*( ?-> ?[^()]*)?$/) return 1
      if (t ~ /\)( ?(const|noexcept))* ?: ?[A-Za-z_:][A-Za-z_0-9:<>]* ?[({].*[)}]$/) return 1
      return 0
    }
    function nameOf(h,    t, p) {
      t = h
      gsub(/[ \t]+/, " ", t)
      sub(/^ /, "", t)
      if (t ~ /^(TEST|TEST_F|TEST_P|TYPED_TEST)\(/) { p = index(t, ")"); return substr(t, 1, p) }
      gsub(/__launch_bounds__ ?\([^)]*\)/, "", t)
      p = index(t, "(")
      t = substr(t, 1, p - 1)
      sub(/ $/, "", t)
      if (match(t, /(operator.*|[A-Za-z_~][A-Za-z_0-9:~<>,]*)$/)) return substr(t, RSTART, RLENGTH)
      return t
    }
    BEGIN { depth = 0; inFunction = 0; inBlock = 0; inRaw = 0; header = ""; headerLine = 0; ctorInit = 0 }
    {
      line = $0
      n = length(line)
      code = ""
      i = 1
      # Blank comments and literals; keep the code characters.
      while (i <= n) {
        c = substr(line, i, 1)
        if (inBlock) {
          if (substr(line, i, 2) == "*/") { inBlock = 0; i += 2 } else i++
          continue
        }
        if (inRaw) {
          if (substr(line, i, length(rawEnd)) == rawEnd) { inRaw = 0; i += length(rawEnd); code = code "\"\"" } else i++
          continue
        }
        if (substr(line, i, 2) == "//") break
        if (substr(line, i, 2) == "/*") { inBlock = 1; i += 2; continue }
        if (c == "#" && code ~ /^[ \t]*$/) break # preprocessor line
        if (c == "R" && substr(line, i + 1, 1) == "\"" && (i == 1 || substr(line, i - 1, 1) !~ /[A-Za-z_0-9]/)) {
          rest = substr(line, i + 2)
          p = index(rest, "(")
          if (p > 0) { rawEnd = ")" substr(rest, 1, p - 1) "\""; inRaw = 1; i += 2 + p; continue }
        }
        if (c == "\"" || c == "\047") {
          q = c; i++
          while (i <= n) {
            d = substr(line, i, 1)
            if (d == "\\") { i += 2; continue }
            i++
            if (d == q) break
          }
          code = code q q
          continue
        }
        code = code c
        i++
      }
      # Walk the code characters: braces, statement ends.
      m = length(code)
      for (j = 1; j <= m; j++) {
        c = substr(code, j, 1)
        if (c == "{") {
          if (inFunction) { depth++; continue }
          if (header ~ /\)[ \t]*(const[ \t]*|noexcept[ \t]*)*:[ \t]*[A-Za-z_]/ && prev ~ /[A-Za-z_0-9>]/) {
            # brace initialiser of a member in a constructor initialiser list: part of the header
            header = header c; braceInit++; continue
          }
          if (isFunction(header)) {
            inFunction = 1; depth = 1; startLine = headerLine ? headerLine : NR; fname = nameOf(header)
          }
          header = ""; headerLine = 0
          continue
        }
        if (c == "}") {
          if (braceInit > 0) { braceInit--; header = header c; continue }
          if (inFunction) {
            depth--
            if (depth == 0) {
              inFunction = 0
              len = NR - startLine + 1
              if (len > max) printf "%d\t%s:%d-%d\t%s\n", len, file, startLine, NR, fname
            }
            continue
          }
          header = ""; headerLine = 0
          continue
        }
        if (inFunction) continue
        if (c == ";") { header = ""; headerLine = 0; continue }
        if (c !~ /[ \t]/) { if (!headerLine) headerLine = NR; prev = c }
        header = header c
      }
      if (!inFunction && header != "") header = header " "
    }
  ' "$file"
done | sort -t$'\t' -k1,1nr | awk -F'\t' '{ printf "%5d  %-48s %s\n", $1, $2, $3 } END { if (NR == 0) print "none" }'
