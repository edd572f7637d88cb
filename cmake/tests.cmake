# cmake/tests.cmake — the tests ctest runs (included by CMakeLists.txt unless -DCORDON_TESTS=OFF).
enable_testing()
set(CORDON_TEST_ENV
  "CORDON=${CMAKE_BINARY_DIR}/cordon"
  "CORDON_SOURCE_DIR=${CMAKE_SOURCE_DIR}"
  "CORDON_BUILD_DIR=${CMAKE_BINARY_DIR}"
  "LUA_CPATH=${CMAKE_BINARY_DIR}/?.so"
  "LUA_PATH=${CMAKE_SOURCE_DIR}/tests/lua/?.lua;;")
if(CORDON_SANITIZE)
  list(APPEND CORDON_TEST_ENV "CORDON_SANITIZED=1" "ASAN_OPTIONS=detect_leaks=1:abort_on_error=1"
       "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1")
endif()

if(CMOCKA_FOUND)
  file(GLOB CORDON_C_TESTS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/c/test_*.c)
  foreach(src ${CORDON_C_TESTS})
    get_filename_component(name ${src} NAME_WE)
    add_executable(${name} ${src} $<TARGET_OBJECTS:cordon_obj>)
    target_include_directories(${name} PRIVATE ${CMAKE_SOURCE_DIR}/src ${CMAKE_SOURCE_DIR}/tests/c)
    target_link_libraries(${name} PRIVATE ${CORDON_DEP_LIBS} PkgConfig::LUA PkgConfig::CMOCKA m)
    add_test(NAME c/${name} COMMAND ${name})
    set_tests_properties(c/${name} PROPERTIES ENVIRONMENT "${CORDON_TEST_ENV}")
  endforeach()
endif()

# Lua tests run inside the cordon binary (so sanitizers see them); test_module_loads also uses stock lua5.4.
file(GLOB CORDON_LUA_TESTS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/lua/test_*.lua)
foreach(src ${CORDON_LUA_TESTS})
  get_filename_component(name ${src} NAME_WE)
  add_test(NAME lua/${name} COMMAND cordon_cli lua ${src})
  set_tests_properties(lua/${name} PROPERTIES ENVIRONMENT "${CORDON_TEST_ENV}")
endforeach()

file(GLOB CORDON_SHELL_TESTS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/cli/test_*.sh ${CMAKE_SOURCE_DIR}/tests/enforce/test_*.sh)
foreach(src ${CORDON_SHELL_TESTS})
  get_filename_component(name ${src} NAME_WE)
  get_filename_component(dir ${src} DIRECTORY)
  get_filename_component(group ${dir} NAME)
  add_test(NAME ${group}/${name} COMMAND bash ${src})
  set_tests_properties(${group}/${name} PROPERTIES ENVIRONMENT "${CORDON_TEST_ENV}" SKIP_RETURN_CODE 77)
endforeach()

if(CORDON_FUZZ)
  file(GLOB CORDON_FUZZ_TARGETS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/fuzz/fuzz_*.c)
  foreach(src ${CORDON_FUZZ_TARGETS})
    get_filename_component(name ${src} NAME_WE)
    add_executable(${name} ${src} $<TARGET_OBJECTS:cordon_obj>)
    target_include_directories(${name} PRIVATE ${CMAKE_SOURCE_DIR}/src)
    target_compile_options(${name} PRIVATE -fsanitize=fuzzer)
    target_link_options(${name} PRIVATE -fsanitize=fuzzer)
    target_link_libraries(${name} PRIVATE ${CORDON_DEP_LIBS} PkgConfig::LUA m)
  endforeach()
endif()
