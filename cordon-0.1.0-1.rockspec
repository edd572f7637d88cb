-- cordon-0.1.0-1.rockspec — `luarocks --lua-version=5.4 make` in this directory builds cordon with CMake
-- and installs the Lua module (cordon.so) into the tree, with the CLI, the C library and the docs in the
-- rock's own directory. docs/install.md says what Debian's luarocks package can and cannot do for 5.4.
rockspec_format = "3.0"
package = "cordon"
version = "0.1.0-1"
source = {
  url = "git+file://.",  -- `luarocks make` builds the checkout it is run in; this is never fetched
}
description = {
  summary = "A sandbox engine for coding agents: Seatbelt and Landlock policies, checked on any OS",
  detailed = [[
    require "cordon" gives permission profiles, execution boundaries, SBPL reading, writing, deciding
    and linting, policy assembly from a profile tree, and the sandbox manager (Seatbelt on macOS;
    Landlock, namespaces and seccomp on Linux).]],
  homepage = "https://example.invalid/cordon",
  license = "see README.md",
}
dependencies = { "lua >= 5.4, < 5.5" }
external_dependencies = {
  YAML = { header = "yaml.h" },
  JANSSON = { header = "jansson.h" },
  SECCOMP = { header = "seccomp.h" },
  SQLITE = { header = "sqlite3.h" },
}
build = {
  type = "cmake",
  variables = {
    CMAKE_BUILD_TYPE = "Release",
    CMAKE_INSTALL_PREFIX = "$(PREFIX)",
    CORDON_LUA_CMOD_DIR = "$(LIBDIR)",  -- cordon.so, where the tree's Lua finds C modules
    CMAKE_INSTALL_LIBDIR = "clib",      -- libcordon and its pkg-config and CMake files stay in the rock
    CORDON_TESTS = "OFF",
  },
}
