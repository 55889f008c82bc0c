# config_layering_test: config/ stays below runtime/. Run by CTest as
#   cmake -DSOURCE_DIR=<repo> -DCONFIG_LINKS=<vkserve_config's link libraries, "|"-separated>
#         -P check_layering.cmake
# and fails (exit 1) when
#   - a file of config/ or tests/config/ includes a header of runtime/ or
#     server/, or of gpu/ other than the header-only status macros;
#   - vkserve_config links anything but vkserve_proto, vkserve_base and Abseil (a link to
#     vkserve_model or vkserve_runtime would let the includes creep back).
# Why a test and not a review rule: the include directories make every
# header of the tree reachable, so nothing else stops a stray include.
cmake_minimum_required(VERSION 3.20)

if(NOT SOURCE_DIR OR NOT DEFINED CONFIG_LINKS)
  message(FATAL_ERROR "usage: cmake -DSOURCE_DIR=... -DCONFIG_LINKS=... -P check_layering.cmake")
endif()

set(problems "")

file(GLOB_RECURSE files RELATIVE ${SOURCE_DIR}
  ${SOURCE_DIR}/config/*.h ${SOURCE_DIR}/config/*.cc ${SOURCE_DIR}/config/*.in
  ${SOURCE_DIR}/tests/config/*.h ${SOURCE_DIR}/tests/config/*.cc)
if(NOT files)
  message(FATAL_ERROR "no files found under ${SOURCE_DIR}/config: wrong SOURCE_DIR?")
endif()
foreach(file IN LISTS files)
  file(STRINGS ${SOURCE_DIR}/${file} includes
       REGEX "^[ \t]*#[ \t]*include[ \t]*[\"<](runtime|server|gpu)/")
  foreach(line IN LISTS includes)
    if(NOT line MATCHES "[\"<]gpu/status_macros\\.h[\">]")
      string(STRIP "${line}" line)
      string(APPEND problems "  ${file}: ${line}\n")
    endif()
  endforeach()
endforeach()

string(REPLACE "|" ";" links "${CONFIG_LINKS}")
foreach(link IN LISTS links)
  if(NOT link STREQUAL "vkserve_proto" AND NOT link STREQUAL "vkserve_base" AND NOT link MATCHES "^absl::")
    string(APPEND problems "  vkserve_config links ${link}\n")
  endif()
endforeach()

list(LENGTH files count)
if(problems)
  message(FATAL_ERROR "config/ must not depend on runtime/, server/ or GPU code "
                      "(server/model_tensors.h translates runtime types for it):\n${problems}")
endif()
message(STATUS "${count} files of config/ and tests/config/ include nothing above config/; "
               "vkserve_config links: ${links}")
