# cmake/musl-static-pie.cmake — toolchain: static-pie executables against musl, built by the host's gcc
# with musl's headers, start files and libc.a in place of glibc's (no specs file, no musl-gcc wrapper).
set(CMAKE_SYSTEM_NAME Linux)
if(NOT CMAKE_C_COMPILER)
  set(CMAKE_C_COMPILER gcc)
endif()
include(${CMAKE_CURRENT_LIST_DIR}/find_musl.cmake)
if(NOT CORDON_MUSL_INCLUDE_DIR OR NOT CORDON_MUSL_LIB_DIR)
  message(FATAL_ERROR "musl not found for ${CMAKE_C_COMPILER} (Debian: musl-dev); set CORDON_MUSL_INCLUDE_DIR "
                      "and CORDON_MUSL_LIB_DIR")
endif()
# musl's headers before the compiler's and the system's: the kernel's uapi headers (linux/*.h), which musl
# does not ship, still come from /usr/include.
set(CMAKE_C_FLAGS_INIT "-isystem ${CORDON_MUSL_INCLUDE_DIR} -fPIE")
# -static-pie: no loader, addresses still randomised; -B: rcrt1.o, crti.o, crtn.o and libc.a from musl
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static-pie -B${CORDON_MUSL_LIB_DIR}/")
