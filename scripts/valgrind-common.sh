# Sourced by scripts/memcheck.sh and scripts/leakcheck.sh: how this project
# runs its binary under valgrind memcheck.
#
# valgrind_copy BIN OUT: a copy of BIN in OUT without debug sections, for
# valgrind to run. Valgrind 3.19 (Debian 12) cannot read the DWARF 5 the
# Swift 6 toolchain emits and gives up ("Possibly corrupted debuginfo
# file"); the copy keeps its symbols, which is all the stacks need.
valgrind_copy() {
  strip --strip-debug -o "$2/hkid-liveness" "$1"
}

# The options every run shares. --undef-value-errors=no: libavcodec's SIMD
# code writes the decoded frames in libav's GstBufferPool, which valgrind
# does not see through, so every read of a frame by OpenCV would be an
# "uninitialised value" (~10 million of them, traced with --track-origins);
# addressability errors and leaks are what these scripts look for.
# scripts/valgrind.supp holds only GLib/GStreamer/loader one-time
# allocations, each commented.
VALGRIND_OPTIONS="--undef-value-errors=no --error-exitcode=3 --suppressions=scripts/valgrind.supp"
