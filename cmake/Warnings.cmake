# Warnings: -Wall -Wextra everywhere; -Werror when MW_WERROR is on (CI turns it on).
function(mw_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor>
    $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<BOOL:${MW_WERROR}>>:-Werror>
    # A unity build (CMAKE_UNITY_BUILD: scripts/test, debian/rules) includes
    # each .cc into a generated file, and GCC then takes a .cc's anonymous
    # namespace types in a class member for a header's (-Wsubobject-linkage).
    # The separate builds (scripts/setup, the TSan and fuzz builds) keep it.
    $<$<AND:$<CXX_COMPILER_ID:GNU>,$<BOOL:$<TARGET_PROPERTY:UNITY_BUILD>>>:-Wno-subobject-linkage>)
endfunction()

if(MW_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer
                      -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()

if(MW_TSAN)
  if(MW_SANITIZE)
    message(FATAL_ERROR "MW_TSAN and MW_SANITIZE cannot be combined")
  endif()
  add_compile_options(-fsanitize=thread -fno-omit-frame-pointer)
  add_link_options(-fsanitize=thread)
  # Boost.Asio's handler blocks use std::atomic_thread_fence, which TSan does
  # not model; GCC says so with -Wtsan (an error under -Werror). A fence it
  # cannot see can only add a false report, never hide a race.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    add_compile_options(-Wno-tsan)
  endif()
endif()

if(MW_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "MW_FUZZ needs clang (e.g. -DCMAKE_CXX_COMPILER=clang++-14)")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer
                      -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()
