# Installing the lab like a desktop application, and packaging it as a .deb.
#
#   cmake --install build/dev --prefix /tmp/root/usr
#   ./lab package            (a Release build without CUDA, then cpack: build/package/*.deb)
#
# The installed programs find their presets at <prefix>/share/precision-lab/presets
# (preset_library.cpp looks there beside <prefix>/bin), so no source tree is needed.
include(GNUInstallDirs)

install(TARGETS plab RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
foreach(gui precision-lab precision-lab-imgui)
  if(TARGET ${gui})
    install(TARGETS ${gui} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  endif()
endforeach()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/assets/presets/
        DESTINATION ${CMAKE_INSTALL_DATADIR}/precision-lab/presets FILES_MATCHING PATTERN "*.json")
install(FILES ${PROJECT_SOURCE_DIR}/assets/precision-lab.desktop DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
install(FILES ${PROJECT_SOURCE_DIR}/assets/icons/precision-lab.svg
        DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps)
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/docs/telemetry.md
        DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/precision-lab)

# plab(1), written by help2man from plab's own --help and --version, so the
# manual and the program cannot disagree; installed gzipped (-n: no name or
# time stamp in it, so the same page gives the same bytes), as Debian's
# policy asks of manual pages.
find_program(PLAB_HELP2MAN help2man)
find_program(PLAB_GZIP gzip)
if(PLAB_HELP2MAN AND PLAB_GZIP)
  set(plab_man ${CMAKE_CURRENT_BINARY_DIR}/plab.1)
  add_custom_command(OUTPUT ${plab_man} ${plab_man}.gz
    COMMAND ${PLAB_HELP2MAN} --no-info --no-discard-stderr
            --name "train small networks in mixed precision, headless, and measure them"
            --output ${plab_man} $<TARGET_FILE:plab>
    COMMAND ${PLAB_GZIP} -9nkf ${plab_man}
    DEPENDS plab
    COMMENT "Writing the plab(1) manual page from plab --help")
  add_custom_target(plab_man_page ALL DEPENDS ${plab_man}.gz)
  install(FILES ${plab_man}.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
else()
  message(STATUS "help2man or gzip not found: no plab(1) manual page (plab --help has the same text)")
endif()

# The .deb: its dependencies are the Debian runtime packages the binaries
# link (dpkg-shlibdeps), plus what is loaded at run time rather than linked.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME precision-lab)
set(CPACK_PACKAGE_VENDOR "Precision Lab")
set(CPACK_PACKAGE_CONTACT "Precision Lab developers <precision-lab@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Mixed-precision training lab: FP32, TF32, FP16, BF16 and FP8 down to the bits")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(plab_runtime_depends "")
if(TARGET precision-lab)
  list(APPEND plab_runtime_depends "qt6-qpa-plugins")  # the platform plugin Qt loads to open a window
endif()
if(TARGET precision-lab-imgui)
  list(APPEND plab_runtime_depends "fonts-dejavu-core")  # the live view's font, read at start
endif()
list(JOIN plab_runtime_depends ", " CPACK_DEBIAN_PACKAGE_DEPENDS)
include(CPack)
