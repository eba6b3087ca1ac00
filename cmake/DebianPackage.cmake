# `cpack -G DEB` from a build folder: a .deb of what `cmake --install` installs, under /usr, whose
# Depends come from the shared libraries the executable links (dpkg-shlibdeps), so
# `apt-get install ./rankscope_*.deb` pulls exactly the runtime libraries it needs.
set(RANKSCOPE_PACKAGE_MAINTAINER "RankScope maintainers <rankscope@users.noreply.github.com>"
    CACHE STRING "The .deb's Maintainer field")

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME rankscope)
set(CPACK_PACKAGE_VENDOR "The RankScope developers")
set(CPACK_PACKAGE_CONTACT "${RANKSCOPE_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
# Debian wraps the long description at 80 columns, its lines indented by one space.
set(CPACK_PACKAGE_DESCRIPTION
    "RankScope opens a folder of transformer training checkpoints (PyTorch,
safetensors, HDF5 or NumPy), finds every attention and MLP matrix in every
layer, computes their singular values on all cores, and shows how stable
rank, compression, power-law alpha, weighted alpha, effective rank and
norms evolve over training: metric against step, bars per layer, type by
layer heatmaps and single spectra, with several runs compared on shared
scales. Figures export to PNG, SVG and PDF; the analyze, info and export
commands do the same without a display.

Pickled checkpoints are read without running any of their code.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGE_CHECKSUM SHA256)

set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT) # rankscope_0.1.0-1_amd64.deb
set(CPACK_DEBIAN_PACKAGE_RELEASE 1)

# A new version needs its entry in the Debian changelog and the AppStream releases: say so now
# rather than ship a package whose changelog names another version.
file(STRINGS ${PROJECT_SOURCE_DIR}/resources/desktop/debian/changelog changelog_top LIMIT_COUNT 1)
set(package_version "${PROJECT_VERSION}-${CPACK_DEBIAN_PACKAGE_RELEASE}")
if(NOT changelog_top MATCHES "^rankscope \\(${package_version}\\) ")
    message(FATAL_ERROR "resources/desktop/debian/changelog starts with '${changelog_top}': "
                        "add an entry for rankscope (${package_version})")
endif()
file(READ ${PROJECT_SOURCE_DIR}/resources/desktop/${RANKSCOPE_APP_ID}.metainfo.xml metainfo)
if(NOT metainfo MATCHES "<release version=\"${PROJECT_VERSION}\"")
    message(FATAL_ERROR "resources/desktop/${RANKSCOPE_APP_ID}.metainfo.xml has no <release version=\"${PROJECT_VERSION}\">")
endif()
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)

include(CPack)
