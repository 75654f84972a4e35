// The translation unit that makes the test binaries' precompiled header
// (tests/CMakeLists.txt, mw_test_pch); it has no code of its own.
