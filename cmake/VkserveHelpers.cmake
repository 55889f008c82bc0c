# Small helpers shared by every directory's CMakeLists.txt.

# vkserve_library(NAME SOURCES... DEPS...): a static library of our code with our warnings,
# compiled as a unity build (batches of 16 files) unless -DVKSERVE_UNITY_BUILD=OFF: most of
# a file's compile time is the headers it shares with its neighbours (gRPC, protobuf, absl,
# Vulkan), and CI builds every library in three trees cold. File-local names therefore
# differ between the files of one library.
function(vkserve_library name)
  cmake_parse_arguments(ARG "OBJECT" "" "SOURCES;DEPS" ${ARGN})
  if(ARG_OBJECT)
    add_library(${name} OBJECT ${ARG_SOURCES})
  else()
    add_library(${name} STATIC ${ARG_SOURCES})
  endif()
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR})
  target_compile_options(${name} PRIVATE ${VKSERVE_WARNINGS})
  target_link_libraries(${name} PUBLIC ${ARG_DEPS})
  set_target_properties(${name} PROPERTIES UNITY_BUILD ${VKSERVE_UNITY_BUILD} UNITY_BUILD_BATCH_SIZE 16)
endfunction()

# In sanitizer builds, links into executable `target` what the sanitizers
# need from it. Every sanitizer: the Vulkan driver and layer stay loaded
# (base/sanitizer/pinned_libraries.cc) so that LSan's and TSan's suppressions
# still match them at exit. ThreadSanitizer also: what lets TSan see the
# hand-offs of Debian's uninstrumented absl::Mutex that gRPC locks with
# (base/tsan/absl_sync.cc: the wrappers must be in the dynamic symbol table
# to stand in for libabsl's). Nothing in other builds.
function(vkserve_sanitizer_support target)
  if(VKSERVE_SANITIZE OR VKSERVE_SANITIZE_THREAD OR VKSERVE_FUZZ)
    target_sources(${target} PRIVATE ${PROJECT_SOURCE_DIR}/base/sanitizer/pinned_libraries.cc)
    target_link_libraries(${target} PRIVATE ${CMAKE_DL_LIBS})
  endif()
  if(VKSERVE_SANITIZE_THREAD)
    target_sources(${target} PRIVATE ${PROJECT_SOURCE_DIR}/base/tsan/absl_sync.cc)
    target_link_options(${target} PRIVATE "LINKER:--export-dynamic-symbol=_ZN4absl7debian3*,--export-dynamic-symbol=_ZNK4absl7debian3*")
  endif()
endfunction()

# vkserve_test(NAME SOURCES... DEPS... [LABELS ...]): a googletest binary registered with CTest.
# Every test runs with the Khronos validation layer on; any message it prints fails the test.
function(vkserve_test name)
  cmake_parse_arguments(ARG "" "TIMEOUT" "SOURCES;DEPS;LABELS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_compile_options(${name} PRIVATE ${VKSERVE_WARNINGS})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gtest GTest::gmock)
  vkserve_sanitizer_support(${name})
  add_test(NAME ${name} COMMAND ${name})
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 600)
  endif()
  set_tests_properties(${name} PROPERTIES
    TIMEOUT ${ARG_TIMEOUT}
    LABELS "${ARG_LABELS}"
    ENVIRONMENT "VKSERVE_VALIDATION=1;VKSERVE_SOURCE_DIR=${PROJECT_SOURCE_DIR};VKSERVE_BINARY_DIR=${PROJECT_BINARY_DIR}")
endfunction()
