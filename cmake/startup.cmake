# cmake/startup.cmake — what the build does for the start-up time of `cordon run` (docs/benchmarks.md):
# links the cordon executable (cordon_cli) against static archives where they are installed, and builds
# the static musl front that answers run-cache hits. Included by CMakeLists.txt after cordon_cli.

# --- cordon_cli, statically linked ------------------------------------------------------------------
# Resolving a dozen shared libraries costs about 1 ms of every run. getpwuid (only when HOME is unset)
# then needs the NSS modules of the same glibc, as the linker warns.
option(CORDON_STATIC_DEPS "Link the cordon executable against static archives of its libraries" ON)
set(CORDON_STATIC_ARCHIVES "")
if(CORDON_STATIC_DEPS)
  set(libs lua5.4 yaml jansson sqlite3 edit bsd md tinfo)
  if(CORDON_WITH_LINUX)
    list(APPEND libs seccomp)
  endif()
  foreach(lib ${libs})
    find_library(CORDON_STATIC_${lib} NAMES lib${lib}.a)
    if(NOT CORDON_STATIC_${lib})
      message(STATUS "cordon: no lib${lib}.a; linking the executable dynamically")
      set(CORDON_STATIC_ARCHIVES "")
      break()
    endif()
    list(APPEND CORDON_STATIC_ARCHIVES ${CORDON_STATIC_${lib}})
  endforeach()
endif()
if(CORDON_STATIC_ARCHIVES)
  target_link_libraries(cordon_cli PRIVATE ${CORDON_STATIC_ARCHIVES} z m dl pthread)
  # With libc too (static-pie keeps address randomisation): no loader, no libc.so to map and relocate,
  # about 0.3 ms a run. Not under the sanitizers, whose runtimes are shared libraries.
  if(NOT CORDON_SANITIZE)
    include(CheckCSourceCompiles)
    set(CMAKE_REQUIRED_LINK_OPTIONS -static-pie)
    check_c_source_compiles("int main(void) { return 0; }" CORDON_HAVE_STATIC_PIE)
    unset(CMAKE_REQUIRED_LINK_OPTIONS)
    if(CORDON_HAVE_STATIC_PIE)
      target_link_options(cordon_cli PRIVATE -static-pie)
    endif()
  endif()
else()
  target_link_libraries(cordon_cli PRIVATE cordon_deps PkgConfig::LUA PkgConfig::EDIT m)
endif()

# --- the static front (src/front/) -------------------------------------------------------------------
# `cordon` linked against musl answers cache hits and execs `cordon-full` (cordon_cli) for everything
# else: glibc's start-up alone costs ~0.25 ms a run on these virtual machines. AUTO builds it where it
# can: gcc, musl (Debian: musl-dev), the Linux backend, no sanitizers. Without it, `cordon` is cordon_cli.
set(CORDON_FRONT AUTO CACHE STRING "Build cordon as a static musl front for cordon-full: AUTO, ON or OFF")
set_property(CACHE CORDON_FRONT PROPERTY STRINGS AUTO ON OFF)
set(front_missing "")
if(CORDON_FRONT)  # AUTO, like ON, is not a false constant
  include(${CMAKE_CURRENT_LIST_DIR}/find_musl.cmake)
  if(NOT CORDON_WITH_LINUX)
    set(front_missing "the Linux backend is off")
  elseif(CORDON_SANITIZE)
    set(front_missing "the sanitizers are on")
  elseif(NOT CMAKE_C_COMPILER_ID STREQUAL "GNU")
    set(front_missing "the compiler is not gcc")
  elseif(NOT CORDON_MUSL_INCLUDE_DIR OR NOT CORDON_MUSL_LIB_DIR)
    set(front_missing "musl was not found (Debian: musl-dev)")
  endif()
  if(front_missing AND NOT CORDON_FRONT STREQUAL "AUTO")
    message(FATAL_ERROR "cordon: CORDON_FRONT=${CORDON_FRONT} but ${front_missing}")
  elseif(front_missing)
    message(STATUS "cordon: no static front: ${front_missing}")
  endif()
endif()

if(NOT CORDON_FRONT OR front_missing)
  file(REMOVE ${CMAKE_BINARY_DIR}/cordon-full)  # left by an earlier build with the front: tests look for it
else()
  set_target_properties(cordon_cli PROPERTIES OUTPUT_NAME cordon-full)
  include(ExternalProject)
  ExternalProject_Add(cordon_front
    SOURCE_DIR ${CMAKE_SOURCE_DIR}/src/front
    PREFIX ${CMAKE_BINARY_DIR}/front
    CMAKE_ARGS -DCMAKE_TOOLCHAIN_FILE=${CMAKE_CURRENT_LIST_DIR}/musl-static-pie.cmake
               -DCMAKE_C_COMPILER=${CMAKE_C_COMPILER} -DCMAKE_BUILD_TYPE=${CMAKE_BUILD_TYPE}
               -DCORDON_MUSL_INCLUDE_DIR=${CORDON_MUSL_INCLUDE_DIR} -DCORDON_MUSL_LIB_DIR=${CORDON_MUSL_LIB_DIR}
               -DCORDON_VERSION=${PROJECT_VERSION}
    BUILD_ALWAYS ON  # its own build knows what changed
    INSTALL_COMMAND ${CMAKE_COMMAND} -E copy_if_different <BINARY_DIR>/cordon ${CMAKE_BINARY_DIR}/cordon
    BUILD_BYPRODUCTS ${CMAKE_BINARY_DIR}/cordon)
  add_dependencies(cordon_front cordon_cli)  # the pair is what runs: a test never finds one half
  install(PROGRAMS ${CMAKE_BINARY_DIR}/cordon TYPE BIN)
endif()
