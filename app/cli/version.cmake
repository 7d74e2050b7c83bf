# Writes ${OUT} from ${IN} (app/cli/version.h.in): the version ${VERSION} and the git commit of ${SOURCE_DIR}.
# Run at every build (app/CMakeLists.txt), so a new commit shows without a reconfigure; configure_file leaves OUT
# untouched when its text is the same, so a build without a new commit recompiles nothing.
#
#   cmake -DSOURCE_DIR=... -DVERSION=1.2.3 -DIN=version.h.in -DOUT=version.h [-DGIT_EXECUTABLE=/usr/bin/git] -P version.cmake
#
# The commit is `git rev-parse --short HEAD`, with "-dirty" when tracked files differ from HEAD (untracked files do
# not count, as with `git describe --dirty`), and "unknown" without git, outside a checkout, or when SOURCE_DIR is
# only a folder inside another repository (a source tarball unpacked in someone's checkout is not that commit).
set(commit unknown)
if(NOT GIT_EXECUTABLE)
  find_program(GIT_EXECUTABLE git)
endif()
if(GIT_EXECUTABLE)
  execute_process(COMMAND "${GIT_EXECUTABLE}" -C "${SOURCE_DIR}" rev-parse --show-toplevel
                  OUTPUT_VARIABLE top RESULT_VARIABLE failed OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  file(REAL_PATH "${SOURCE_DIR}" source)
  if(NOT failed)
    file(REAL_PATH "${top}" top)
  endif()
  if(NOT failed AND top STREQUAL source)
    execute_process(COMMAND "${GIT_EXECUTABLE}" -C "${SOURCE_DIR}" rev-parse --short HEAD
                    OUTPUT_VARIABLE hash RESULT_VARIABLE failed OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(NOT failed AND hash MATCHES "^[0-9a-f]+$")
      set(commit "${hash}")
      # --no-optional-locks: no index refresh written back, so a build never contends with a git command running
      # beside it. A failed status counts as dirty: a clean tree is not claimed.
      execute_process(COMMAND "${GIT_EXECUTABLE}" --no-optional-locks -C "${SOURCE_DIR}" status --porcelain
                              --untracked-files=no
                      OUTPUT_VARIABLE changes RESULT_VARIABLE failed ERROR_QUIET)
      if(failed OR NOT changes STREQUAL "")
        string(APPEND commit "-dirty")
      endif()
    endif()
  endif()
endif()
set(GRAPHSIM_VERSION "${VERSION}")
set(GRAPHSIM_GIT_COMMIT "${commit}")
configure_file("${IN}" "${OUT}" @ONLY)
