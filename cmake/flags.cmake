# cmake/flags.cmake — the C dialect and warnings every cordon target builds with (the front's project too).
set(CMAKE_C_STANDARD 11)
set(CMAKE_C_STANDARD_REQUIRED ON)
set(CMAKE_C_EXTENSIONS OFF)
if(NOT CMAKE_BUILD_TYPE)
  set(CMAKE_BUILD_TYPE RelWithDebInfo)
endif()
add_compile_options(-Wall -Wextra -Wundef -Werror -Wno-unused-parameter)  # -Wundef: a build switch left undefined is an error
add_compile_definitions(_GNU_SOURCE)
