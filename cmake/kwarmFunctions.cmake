# kwarm_add_warmup(<target> SPEC <file> [OUTPUT <mk>] [ARGS <gen option>...])
#
# Adds <target>, which makes the warm-up Makefile of SPEC (OUTPUT, default
# ${CMAKE_CURRENT_BINARY_DIR}/<target>.mk) when it is missing, older than the
# spec or generated with other ARGS, then runs its 'warmup' target. ARGS are
# passed to 'kwarm gen' (--cache DIR, --out DIR, --launcher CMD, --format
# github). The Makefile remakes itself whenever an input changes.
#
# The cache: ARGS' --cache DIR when given; else the KWARM_CACHE environment
# variable as CMake saw it when configuring; else ${CMAKE_BINARY_DIR}/kwarm-cache,
# so a build writes nothing outside its build folder (the spec's own 'cache',
# relative to its root, is not used). The choice is always passed as --cache,
# and a reconfigure that changes it regenerates the Makefile.
#
# Makefile generators: the warm-up runs as a sub-make through $(MAKE), so the
# parent's make -jN is the one bound on every job (its jobserver reaches kwarm).
#
# Ninja and the other generators have no jobserver to hand down. The target
# then runs 'make -jN' in ninja's console pool (USES_TERMINAL: its output goes
# straight to the terminal and no other console job runs meanwhile), with N
# from the cache variable KWARM_JOBS (default: the CMAKE_BUILD_PARALLEL_LEVEL
# environment variable, else the number of processors). Ninja's own jobs that
# do not depend on the warm-up can still run beside it: build the target on its
# own ('ninja warmup') when the machine must not run more than N jobs.

set(KWARM_FUNCTIONS_DIR "${CMAKE_CURRENT_LIST_DIR}")

# _kwarm_default_cache(<var>): the cache of a warm-up whose ARGS name none.
function(_kwarm_default_cache var)
  if(DEFINED ENV{KWARM_CACHE} AND NOT "$ENV{KWARM_CACHE}" STREQUAL "")
    set(${var} "$ENV{KWARM_CACHE}" PARENT_SCOPE)
  else()
    set(${var} "${CMAKE_BINARY_DIR}/kwarm-cache" PARENT_SCOPE)
  endif()
endfunction()

function(kwarm_add_warmup target)
  cmake_parse_arguments(PARSE_ARGV 1 KW "" "SPEC;OUTPUT" "ARGS")
  if(NOT KW_SPEC)
    message(FATAL_ERROR "kwarm_add_warmup(${target}): SPEC <file> is required")
  endif()
  if(KW_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "kwarm_add_warmup(${target}): unknown arguments: ${KW_UNPARSED_ARGUMENTS}")
  endif()
  get_filename_component(spec "${KW_SPEC}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  if(KW_OUTPUT)
    get_filename_component(mk "${KW_OUTPUT}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")
  else()
    set(mk "${CMAKE_CURRENT_BINARY_DIR}/${target}.mk")
  endif()
  if(TARGET kwarm::kwarm)
    set(kwarm_exe "$<TARGET_FILE:kwarm::kwarm>")
  elseif(TARGET kwarm)
    set(kwarm_exe "$<TARGET_FILE:kwarm>")
  else()
    message(FATAL_ERROR "kwarm_add_warmup(${target}): no kwarm::kwarm target; find_package(kwarm) first")
  endif()

  # Without --cache, kwarm gen would fall back to the spec's cache, which is
  # usually in the source tree.
  set(args ${KW_ARGS})
  list(FIND args --cache at)
  if(at EQUAL -1)
    _kwarm_default_cache(cache)
    list(APPEND args --cache "${cache}")
  endif()

  # A changed ARGS list must regenerate: Makefile generators do not rerun a
  # custom command whose command line alone changed, so it is a file here.
  set(args_file "${mk}.args")
  string(REPLACE ";" "\n" args_text "${args}")
  file(GENERATE OUTPUT "${args_file}" CONTENT "${args_text}\n")
  add_custom_command(OUTPUT "${mk}"
    COMMAND ${kwarm_exe} gen "${spec}" -o "${mk}" ${args}
    DEPENDS "${spec}" "${args_file}"
    COMMENT "kwarm: generating ${mk}"
    VERBATIM)

  if(CMAKE_GENERATOR MATCHES "Make")
    add_custom_target(${target}
      COMMAND $(MAKE) -f "${mk}" warmup
      DEPENDS "${mk}"
      COMMENT "kwarm: warming up ${KW_SPEC}"
      VERBATIM)
  else()
    if(NOT DEFINED KWARM_JOBS)
      if(DEFINED ENV{CMAKE_BUILD_PARALLEL_LEVEL} AND NOT "$ENV{CMAKE_BUILD_PARALLEL_LEVEL}" STREQUAL "")
        set(jobs "$ENV{CMAKE_BUILD_PARALLEL_LEVEL}")
      else()
        include(ProcessorCount)
        ProcessorCount(jobs)
        if(jobs EQUAL 0)
          set(jobs 2)
        endif()
      endif()
      set(KWARM_JOBS "${jobs}" CACHE STRING "make -j for kwarm warm-ups under generators without a jobserver (Ninja)")
    endif()
    find_program(KWARM_MAKE_PROGRAM NAMES gmake make REQUIRED)
    add_custom_target(${target}
      COMMAND "${KWARM_MAKE_PROGRAM}" -j${KWARM_JOBS} -f "${mk}" warmup
      DEPENDS "${mk}"
      COMMENT "kwarm: warming up ${KW_SPEC} (make -j${KWARM_JOBS})"
      USES_TERMINAL
      VERBATIM)
  endif()
endfunction()
