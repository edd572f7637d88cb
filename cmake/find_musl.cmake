# cmake/find_musl.cmake — where musl's headers and start files are for the C compiler's target; sets
# CORDON_MUSL_INCLUDE_DIR and CORDON_MUSL_LIB_DIR (cache entries: set them by hand for another layout).
execute_process(COMMAND ${CMAKE_C_COMPILER} -dumpmachine OUTPUT_VARIABLE cordon_machine
                OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
string(REPLACE "-gnu" "-musl" cordon_musl_machine "${cordon_machine}")  # Debian's musl-dev: x86_64-linux-musl
find_path(CORDON_MUSL_INCLUDE_DIR NAMES stdio.h NO_DEFAULT_PATH
          PATHS /usr/include/${cordon_musl_machine} /usr/lib/musl/include /usr/local/musl/include)
find_path(CORDON_MUSL_LIB_DIR NAMES rcrt1.o NO_DEFAULT_PATH  # rcrt1.o: the start file of a static-pie
          PATHS /usr/lib/${cordon_musl_machine} /usr/lib/musl/lib /usr/local/musl/lib)
