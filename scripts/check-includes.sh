#!/usr/bin/env bash
# Checks the `#include "..."` lines of the tracked sources under app/ compute/ render/ shaders/ against the layering
# (docs/ARCHITECTURE.md); exits 1 naming each offending file, line and include:
#
#   app/      each folder (directory) sits on a floor of scripts/floors.txt and includes only folders on lower
#             floors (plus compute/, render/, shaders/); a folder missing from floors.txt fails, and so does any
#             cycle between app/ folders (reported as the cycle).
#   compute/  compute/ and shaders/ only (never render/ or app/), and no Vulkan, GLFW or ImGui header. A scene's folder
#             (compute/nbody/, compute/fluid/, with their cuda/) includes no other scene's; the shared layer (compute/
#             itself, compute/cuda/: the kit) includes no scene's.
#   render/   render/, shaders/ and the plain compute/ headers (kPlainCompute below) only, and no CUDA or NCCL header.
#   shaders/  shaders/ only. The plain compute/ headers include no project header at all.
#
# An include that names no tracked file (a generated header: app/version.h, app/embedded_presets.h, the shaders'
# *.spv.inc) is left to the compiler: generated headers include nothing, so they can close no cycle.
#
#   scripts/check-includes.sh               check this checkout (exit 0: layered, 1: not, 2: bad usage)
#   scripts/check-includes.sh --self-test   plant bad includes in temporary trees and expect each to fail
#   scripts/check-includes.sh --root DIR    check the tree at DIR (git-tracked files if DIR is a checkout)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"

check() { # $1: the tree's root
  python3 - "$1" <<'PYTHON'
import os, re, subprocess, sys

root = sys.argv[1]
kPlainCompute = {"compute/protocol.h", "compute/interop.h", "compute/errors.h", "compute/poll.h"}
kSources = re.compile(r"\.(h|hpp|cpp|cu|cuh|inl|vert|frag|comp|glsl)$")
kInclude = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
kAngle = re.compile(r"^\s*#\s*include\s+<([^>]+)>")
kWings = ("app", "compute", "render", "shaders")

try:
    listed = subprocess.run(["git", "-C", root, "ls-files", "--cached", "--others", "--exclude-standard", "--",
                             *kWings], check=True, capture_output=True, text=True).stdout.split()
except (subprocess.CalledProcessError, FileNotFoundError):
    listed = [os.path.relpath(os.path.join(d, f), root) for wing in kWings
              for d, _, fs in os.walk(os.path.join(root, wing)) for f in fs]
files = sorted(f for f in listed if kSources.search(f) and os.path.isfile(os.path.join(root, f)))
tracked = set(files)

floorsPath = os.path.join(root, "scripts", "floors.txt")
floorOf, floors = {}, 0
with open(floorsPath) as lines:
    for line in lines:
        folders = line.split("#", 1)[0].split()
        for folder in folders:
            floorOf[folder.rstrip("/")] = floors
        floors += 1 if folders else 0

errors = []
def fail(where, what):
    errors.append(f"{where}: {what}")

def wing(path):
    return path.split("/", 1)[0]

def sceneOf(path): # compute/<scene>/... -> <scene>; None for the shared layer (compute/*, compute/cuda/*) and others
    parts = path.split("/")
    return parts[1] if parts[0] == "compute" and len(parts) > 2 and parts[1] != "cuda" else None

appEdges = {} # (from folder, to folder) -> the first "file:line" that makes it
for f in files:
    folder = os.path.dirname(f)
    if wing(f) == "app" and folder not in floorOf:
        fail(f, f"folder {folder}/ is on no floor of scripts/floors.txt (place it there)")
    with open(os.path.join(root, f), errors="replace") as text:
        for number, line in enumerate(text, 1):
            where = f"{f}:{number}"
            angle = kAngle.match(line)
            if angle:
                header = angle.group(1)
                if wing(f) == "compute" and re.match(r"(vulkan/|GLFW/|imgui)", header):
                    fail(where, f"#include <{header}>: compute/ never includes Vulkan, GLFW or ImGui")
                if wing(f) == "render" and re.match(r"(cuda|nccl)", header):
                    fail(where, f"#include <{header}>: render/ never includes CUDA or NCCL")
                continue
            match = kInclude.match(line)
            if not match:
                continue
            name = match.group(1)
            target = os.path.normpath(os.path.join(folder, name)) if "/" not in name else name
            if target not in tracked:
                continue # generated, or the compiler will say it is missing
            said = f'#include "{name}"'
            if f in kPlainCompute:
                fail(where, f"{said}: the plain compute/ headers include no project header")
            elif wing(f) == "compute" and wing(target) not in ("compute", "shaders"):
                fail(where, f"{said}: compute/ includes compute/ and shaders/ only")
            elif wing(f) == "compute" and sceneOf(target) and sceneOf(target) != sceneOf(f):
                fail(where, f"{said}: " + (f"compute/{sceneOf(f)}/ includes another scene's folder"
                                           if sceneOf(f) else "the shared compute/ layer includes a scene's folder"))
            elif wing(f) == "render" and wing(target) not in ("render", "shaders") and target not in kPlainCompute:
                fail(where, f"{said}: render/ includes render/, shaders/ and the plain compute/ headers "
                            f"({', '.join(sorted(kPlainCompute))}) only")
            elif wing(f) == "shaders" and wing(target) != "shaders":
                fail(where, f"{said}: shaders/ includes shaders/ only")
            elif wing(f) == "app" and wing(target) == "app":
                to = os.path.dirname(target)
                if to == folder:
                    continue
                appEdges.setdefault((folder, to), where)
                if folder not in floorOf or to not in floorOf:
                    continue # reported above
                if floorOf[to] > floorOf[folder]:
                    fail(where, f"{said}: {folder}/ (floor {floorOf[folder]}) includes {to}/ on a higher floor "
                                f"({floorOf[to]}, scripts/floors.txt)")
                elif floorOf[to] == floorOf[folder]:
                    fail(where, f"{said}: {folder}/ and {to}/ share floor {floorOf[folder]} (scripts/floors.txt): "
                                f"folders on one floor do not include each other")

# Cycles between app/ folders, whatever the floors say: each strongly connected component, as one cycle in it.
graph = {}
for a, b in appEdges:
    graph.setdefault(a, []).append(b)
index, low, stack, onStack, components = {}, {}, [], set(), []
def visit(v):
    index[v] = low[v] = len(index)
    stack.append(v)
    onStack.add(v)
    for w in graph.get(v, []):
        if w not in index:
            visit(w)
            low[v] = min(low[v], low[w])
        elif w in onStack:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        component = []
        while True:
            w = stack.pop()
            onStack.discard(w)
            component.append(w)
            if w == v:
                break
        if len(component) > 1:
            components.append(set(component))
sys.setrecursionlimit(10000)
for v in sorted(graph):
    if v not in index:
        visit(v)
for component in components:
    start = min(component)
    path, seen = [start], {start}
    while True: # walk inside the component until a folder repeats: that is a cycle
        nxt = min(w for w in graph[path[-1]] if w in component)
        if nxt in seen:
            cycle = path[path.index(nxt):] + [nxt]
            break
        path.append(nxt)
        seen.add(nxt)
    steps = ", ".join(f"{a}/ -> {b}/ at {appEdges[(a, b)]}" for a, b in zip(cycle, cycle[1:]))
    fail("app/", f"include cycle: {steps}")

for error in errors:
    print(f"check-includes: {error}", file=sys.stderr)
if errors:
    print(f"check-includes: {len(errors)} problem(s); the floors are scripts/floors.txt, the rules "
          f"docs/ARCHITECTURE.md", file=sys.stderr)
    sys.exit(1)
print(f"check-includes: {len(files)} files, {len(appEdges)} app/ folder-to-folder includes, all downward")
PYTHON
}

selfTest() {
  local tmp
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' RETURN
  local failures=0
  # expect NAME SUBSTRING...: the tree at $tmp/NAME must fail, saying every SUBSTRING.
  expect() {
    local name="$1" out said
    shift
    if out="$(check "$tmp/$name" 2>&1)"; then
      echo "check-includes --self-test: $name: passed, but should have failed" >&2
      failures=$((failures + 1))
      return
    fi
    for said in "$@"; do
      if ! grep -qF -- "$said" <<<"$out"; then
        echo "check-includes --self-test: $name: failed without saying '$said':" >&2
        echo "$out" >&2
        failures=$((failures + 1))
        return
      fi
    done
    echo "check-includes --self-test: $name: fails as it should ($*)"
  }
  # A small tree: app/low below app/high, with the plain compute/ and render/ folders.
  tiny() {
    mkdir -p "$tmp/$1/scripts" "$tmp/$1/app/low" "$tmp/$1/app/high" "$tmp/$1/compute" "$tmp/$1/render"
    printf 'app/low\napp/high\n' >"$tmp/$1/scripts/floors.txt"
    printf '#pragma once\n' >"$tmp/$1/app/low/low.h"
    printf '#pragma once\n#include "app/low/low.h"\n' >"$tmp/$1/app/high/high.h"
    printf '#pragma once\n' >"$tmp/$1/compute/protocol.h"
    printf '#pragma once\n#include "compute/protocol.h"\n' >"$tmp/$1/render/renderer.h"
  }
  tiny good
  if ! check "$tmp/good" >/dev/null; then
    echo "check-includes --self-test: a layered tree failed" >&2
    failures=$((failures + 1))
  fi
  tiny upward
  printf '#include "app/high/high.h"\n' >>"$tmp/upward/app/low/low.cpp"
  expect upward 'app/low/low.cpp:1: #include "app/high/high.h": app/low/ (floor 0) includes app/high/ on a higher floor'
  tiny scenes
  mkdir -p "$tmp/scenes/compute/nbody" "$tmp/scenes/compute/fluid/cuda" "$tmp/scenes/compute/cuda"
  printf '#pragma once\n' >"$tmp/scenes/compute/nbody/nbody.h"
  printf '#include "compute/nbody/nbody.h"\n' >"$tmp/scenes/compute/fluid/cuda/fluid.cpp"
  printf '#include "compute/nbody/nbody.h"\n' >"$tmp/scenes/compute/cuda/kit.cpp"
  expect scenes "compute/fluid/cuda/fluid.cpp:1: #include \"compute/nbody/nbody.h\": compute/fluid/ includes another scene's folder" \
    "compute/cuda/kit.cpp:1: #include \"compute/nbody/nbody.h\": the shared compute/ layer includes a scene's folder"
  tiny cycle
  printf 'app/low app/high\n' >"$tmp/cycle/scripts/floors.txt"
  printf '#include "app/high/high.h"\n' >>"$tmp/cycle/app/low/low.cpp"
  expect cycle 'include cycle: app/high/ -> app/low/ at app/high/high.h:2, app/low/ -> app/high/ at app/low/low.cpp:1'
  tiny unplaced
  mkdir -p "$tmp/unplaced/app/new"
  printf '#include "app/low/low.h"\n' >"$tmp/unplaced/app/new/new.cpp"
  expect unplaced 'folder app/new/ is on no floor of scripts/floors.txt'
  tiny wings
  printf '#pragma once\n#include "render/renderer.h"\n' >"$tmp/wings/compute/kernels.h"
  expect wings 'compute/kernels.h:2: #include "render/renderer.h": compute/ includes compute/ and shaders/ only'
  # This checkout's own tree and floors, with one upward include planted: the real floors must catch it.
  mkdir -p "$tmp/real"
  (cd "$root" && git ls-files -z --cached --others --exclude-standard -- app compute render shaders scripts/floors.txt |
    xargs -0 cp --parents -t "$tmp/real")
  printf '#include "app/cli/cli.h"\n' >>"$tmp/real/app/base/errors.h"
  expect real "app/base/errors.h:$(wc -l <"$tmp/real/app/base/errors.h"): #include \"app/cli/cli.h\"" \
    'includes app/cli/ on a higher floor' 'include cycle: '
  if [ "$failures" -ne 0 ]; then
    echo "check-includes --self-test: $failures case(s) wrong" >&2
    return 1
  fi
  echo "check-includes --self-test: every planted include fails the check"
}

case "${1:-}" in
  "") check "$root" ;;
  --self-test) selfTest ;;
  --root) check "$(cd "${2:?--root needs a directory}" && pwd)" ;;
  -h|--help) sed -n '2,19p' "$0" ;;
  *) echo "check-includes: unknown argument '$1' (want --self-test, --root DIR or nothing)" >&2; exit 2 ;;
esac
