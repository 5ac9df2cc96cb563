#!/bin/sh
# Regenerate the build system from configure.ac and the Makefile.am fragments.
set -e
cd "$(dirname "$0")"
mkdir -p build-aux m4
autoreconf --force --install --warnings=all
# automake does not install its TAP driver on its own; the tests use it so
# that every TAP line (not every file) counts as a test.
cp -f "$(automake --print-libdir)/tap-driver.sh" build-aux/tap-driver.sh
