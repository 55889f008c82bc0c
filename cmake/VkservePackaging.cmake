# Install rules (the FHS layout) and the Debian package (CPack).
#
#   cmake --install build --prefix /usr [--strip] [--component server]
#     /usr/bin/vkserve
#     /etc/vkserve/server.pbtxt                 (CMAKE_INSTALL_SYSCONFDIR: /etc for prefix /usr)
#     /usr/share/vkserve/examples/repository/   (the example model repository)
#     /lib/systemd/system/vkserve.service, vkserve@.service
#     /usr/lib/sysusers.d/vkserve.conf          (the vkserve system user)
#     /usr/share/doc/vkserve/                   (copyright, changelog)
#     /usr/share/man/man1/vkserve.1.gz
#     /var/lib/vkserve/models/                  (the repository the config names; empty)
#   cpack --config build/CPackConfig.cmake -G DEB -B build/package
#
# The prefix defaults to /usr (the package's); absolute paths (/etc, /lib,
# /var) are then staged with DESTDIR=... cmake --install build. With another
# prefix (-DCMAKE_INSTALL_PREFIX=/opt/vkserve) everything lands under it
# (etc/, lib/systemd/system/, var/...).
if(CMAKE_INSTALL_PREFIX_INITIALIZED_TO_DEFAULT)
  set(CMAKE_INSTALL_PREFIX /usr CACHE PATH "Install prefix" FORCE)
endif()
include(GNUInstallDirs)

set(VKSERVE_IS_USR_PREFIX OFF)
if(CMAKE_INSTALL_PREFIX STREQUAL "/usr")
  set(VKSERVE_IS_USR_PREFIX ON)
endif()
# Debian 12 keeps units in /lib/systemd/system (usrmerge links /lib to /usr/lib).
if(VKSERVE_IS_USR_PREFIX)
  set(VKSERVE_UNIT_DIR /lib/systemd/system)
  set(VKSERVE_LOCALSTATE_DIR /var)
else()
  set(VKSERVE_UNIT_DIR lib/systemd/system)
  set(VKSERVE_LOCALSTATE_DIR var)
endif()
set(VKSERVE_DOC_DIR ${CMAKE_INSTALL_DATADIR}/doc/vkserve)
set(VKSERVE_DEBIAN_DIR ${PROJECT_SOURCE_DIR}/deploy/debian)

install(TARGETS vkserve RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT server)
install(FILES ${PROJECT_SOURCE_DIR}/deploy/systemd/server.pbtxt
        DESTINATION ${CMAKE_INSTALL_FULL_SYSCONFDIR}/vkserve COMPONENT server)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/config/examples/repository
        DESTINATION ${CMAKE_INSTALL_DATADIR}/vkserve/examples COMPONENT server
        FILE_PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ
        PATTERN "*.py" EXCLUDE)
install(FILES ${PROJECT_SOURCE_DIR}/config/examples/server.pbtxt
        DESTINATION ${CMAKE_INSTALL_DATADIR}/vkserve/examples COMPONENT server)
install(FILES ${PROJECT_SOURCE_DIR}/deploy/systemd/vkserve.service
              ${PROJECT_SOURCE_DIR}/deploy/systemd/vkserve@.service
        DESTINATION ${VKSERVE_UNIT_DIR} COMPONENT server)
install(FILES ${PROJECT_SOURCE_DIR}/deploy/systemd/vkserve.sysusers
        DESTINATION ${CMAKE_INSTALL_PREFIX}/lib/sysusers.d RENAME vkserve.conf COMPONENT server)
install(DIRECTORY DESTINATION ${VKSERVE_LOCALSTATE_DIR}/lib/vkserve/models COMPONENT server)

# Debian wants the changelog gzipped (-n: no name or time stamp, reproducible).
set(VKSERVE_CHANGELOG_GZ ${PROJECT_BINARY_DIR}/package-doc/changelog.gz)
add_custom_command(OUTPUT ${VKSERVE_CHANGELOG_GZ}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/package-doc
  COMMAND sh -c "gzip -9n < '${VKSERVE_DEBIAN_DIR}/changelog' > '${VKSERVE_CHANGELOG_GZ}'"
  DEPENDS ${VKSERVE_DEBIAN_DIR}/changelog VERBATIM)
set(VKSERVE_MAN_GZ ${PROJECT_BINARY_DIR}/package-doc/vkserve.1.gz)
add_custom_command(OUTPUT ${VKSERVE_MAN_GZ}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/package-doc
  COMMAND sh -c "gzip -9n < '${VKSERVE_DEBIAN_DIR}/vkserve.1' > '${VKSERVE_MAN_GZ}'"
  DEPENDS ${VKSERVE_DEBIAN_DIR}/vkserve.1 VERBATIM)
add_custom_target(vkserve_package_doc ALL DEPENDS ${VKSERVE_CHANGELOG_GZ} ${VKSERVE_MAN_GZ})
install(FILES ${VKSERVE_MAN_GZ} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT server)
install(FILES ${VKSERVE_DEBIAN_DIR}/copyright ${VKSERVE_CHANGELOG_GZ}
        DESTINATION ${VKSERVE_DOC_DIR} COMPONENT server)

set(CPACK_PACKAGE_NAME vkserve)
set(CPACK_PACKAGE_VENDOR "The vkserve Authors")
set(CPACK_PACKAGE_CONTACT "The vkserve Authors <vkserve@example.org>")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "ONNX inference server on Vulkan compute (KServe v2 / Triton gRPC)")
set(CPACK_PACKAGE_DESCRIPTION
    "vkserve runs ONNX and ONNX Runtime (.ort) models on GPUs through Vulkan
compute shaders, every node on the GPU, and serves them over the KServe v2 /
Triton gRPC protocol with Prometheus metrics. This package runs it as a
systemd service (Type=notify, with watchdog and reload) as the vkserve user.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_GENERATOR DEB)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE https://github.com/vkserve/vkserve)
# Dependencies from the shared libraries the binary links (dpkg-shlibdeps),
# plus the tools the maintainer scripts call.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "systemd, init-system-helpers (>= 1.52)")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "mesa-vulkan-drivers | nvidia-vulkan-icd")
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
    ${VKSERVE_DEBIAN_DIR}/conffiles ${VKSERVE_DEBIAN_DIR}/postinst
    ${VKSERVE_DEBIAN_DIR}/prerm ${VKSERVE_DEBIAN_DIR}/postrm)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_INSTALL_CMAKE_PROJECTS "${PROJECT_BINARY_DIR};${PROJECT_NAME};server;/")
include(CPack)
