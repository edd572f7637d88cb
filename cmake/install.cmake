# cmake/install.cmake — what `cmake --install` puts where (included by CMakeLists.txt).
#   bin/cordon (and cordon-full beside it)     the CLI; it carries its Lua scripts and profile tree
#   LIBDIR/libcordon.so, libcordon.a           the C library; include/cordon/ holds its public headers
#   LIBDIR/lua/5.4/cordon.so                   the Lua module, where Lua 5.4 looks for C modules
#   LIBDIR/pkgconfig/cordon.pc                 right for the prefix given at install time
#   LIBDIR/cmake/cordon/                       find_package(cordon) -> cordon::cordon
#   share/cordon/profiles/, share/doc/cordon/  the profile tree (to read or to start one) and the docs
#   share/man/man1/cordon.1, bash/zsh/fish completions, made by the built cordon from its own option specs

set(CORDON_LUA_CMOD_DIR "${CMAKE_INSTALL_LIBDIR}/lua/5.4" CACHE STRING
    "where cordon.so goes, under the prefix (a directory on Lua 5.4's package.cpath)")

# Only the public header set: cordon.h and what it includes, followed through every "…" include.
set(CORDON_PUBLIC_HEADERS "")
set(pending cordon.h)
while(pending)
  list(POP_FRONT pending h)
  if(h IN_LIST CORDON_PUBLIC_HEADERS)
    continue()
  endif()
  list(APPEND CORDON_PUBLIC_HEADERS ${h})
  file(STRINGS ${CMAKE_SOURCE_DIR}/src/${h} includes REGEX "^#include \"")
  foreach(line ${includes})
    string(REGEX REPLACE "^#include \"([^\"]+)\".*" "\\1" inc "${line}")
    list(APPEND pending ${inc})
  endforeach()
endwhile()
foreach(h ${CORDON_PUBLIC_HEADERS})
  get_filename_component(dir ${h} DIRECTORY)
  install(FILES src/${h} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/cordon/${dir})
endforeach()

install(TARGETS cordon_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS cordon_shared EXPORT cordonTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS cordon_static ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS cordon_module LIBRARY DESTINATION ${CORDON_LUA_CMOD_DIR})

# cordon.pc is written at install time, so `cmake --install build --prefix P` gets P, not the prefix
# the build was configured with.
set(CORDON_PC_PRIVATE "yaml-0.1 jansson sqlite3")
if(CORDON_WITH_LINUX)
  string(APPEND CORDON_PC_PRIVATE " libseccomp")
endif()
foreach(kind LIBDIR INCLUDEDIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${kind}}")
    set(CORDON_PC_${kind} "${CMAKE_INSTALL_${kind}}")
  else()  # "\${prefix}/…" in the install script, so "${prefix}/…" in the file
    set(CORDON_PC_${kind} "\\\${prefix}/${CMAKE_INSTALL_${kind}}")
  endif()
endforeach()
install(CODE "
  set(CORDON_PC_PREFIX \"\${CMAKE_INSTALL_PREFIX}\")
  set(CORDON_PC_LIBDIR \"${CORDON_PC_LIBDIR}\")
  set(CORDON_PC_INCLUDEDIR \"${CORDON_PC_INCLUDEDIR}\")
  set(PROJECT_VERSION \"${PROJECT_VERSION}\")
  set(CORDON_PC_PRIVATE \"${CORDON_PC_PRIVATE}\")
  configure_file(\"${CMAKE_SOURCE_DIR}/tools/cordon.pc.in\" \"${CMAKE_BINARY_DIR}/install/cordon.pc\" @ONLY)
")
install(FILES ${CMAKE_BINARY_DIR}/install/cordon.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

include(CMakePackageConfigHelpers)
set(CORDON_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/cordon)
install(EXPORT cordonTargets NAMESPACE cordon:: DESTINATION ${CORDON_CMAKE_DIR})
configure_package_config_file(${CMAKE_SOURCE_DIR}/tools/cordonConfig.cmake.in
                              ${CMAKE_BINARY_DIR}/install/cordonConfig.cmake INSTALL_DESTINATION ${CORDON_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/install/cordonConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/install/cordonConfig.cmake ${CMAKE_BINARY_DIR}/install/cordonConfigVersion.cmake
        DESTINATION ${CORDON_CMAKE_DIR})

install(DIRECTORY ${CMAKE_SOURCE_DIR}/profiles/ DESTINATION ${CMAKE_INSTALL_DATADIR}/cordon/profiles)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(FILES ${CMAKE_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})

# The man page and completions, made by the built cordon from the CLI's own specs (tools/share.lua). Not
# in the fuzz build, whose executable (static, with the fuzzer's sanitizers) is not meant to run.
if(NOT CORDON_FUZZ)
  set(CORDON_SHARE_OUT ${CMAKE_BINARY_DIR}/share)
  set(CORDON_SHARE_FILES ${CORDON_SHARE_OUT}/cordon.1 ${CORDON_SHARE_OUT}/cordon.bash ${CORDON_SHARE_OUT}/_cordon
      ${CORDON_SHARE_OUT}/cordon.fish)
  add_custom_command(
    OUTPUT ${CORDON_SHARE_FILES}
    COMMAND $<TARGET_FILE:cordon_cli> lua ${CMAKE_SOURCE_DIR}/tools/share.lua ${CORDON_SHARE_OUT} ${PROJECT_VERSION}
    DEPENDS cordon_cli ${CMAKE_SOURCE_DIR}/tools/share.lua
    COMMENT "Writing cordon(1) and the shell completions")
  add_custom_target(cordon_share ALL DEPENDS ${CORDON_SHARE_FILES})
  install(FILES ${CORDON_SHARE_OUT}/cordon.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
  install(FILES ${CORDON_SHARE_OUT}/cordon.bash DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
          RENAME cordon)
  install(FILES ${CORDON_SHARE_OUT}/_cordon DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/site-functions)
  install(FILES ${CORDON_SHARE_OUT}/cordon.fish DESTINATION ${CMAKE_INSTALL_DATADIR}/fish/vendor_completions.d)
endif()
