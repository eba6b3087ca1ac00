#!/usr/bin/env bash
# Installs RankScope's build and test dependencies from Debian 12's own packages.
# The single list of what the project needs; both README commands and CI call it.
# dpkg-dev and file: cpack's dpkg-shlibdeps; desktop-file-utils and appstream: validating the
# launcher entry and the AppStream metadata. libopenmpi-dev and openmpi-bin: `mpirun rankscope
# analyze` and its test (the build works without them, in one process).
set -euo pipefail
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update
$SUDO apt-get install -y --no-install-recommends \
    cmake ninja-build g++ make pkg-config clang libclang-rt-14-dev \
    qt6-base-dev qt6-svg-dev libqcustomplot-dev \
    libeigen3-dev libhdf5-dev liblapacke-dev libopenblas-dev zlib1g-dev \
    libgl-dev fonts-dejavu-core \
    libopenmpi-dev openmpi-bin \
    dpkg-dev file desktop-file-utils appstream
