// libFuzzer's driver entry point. Linked only in builds with -sanitize=fuzzer (see
// Scripts/fuzz); declared here because SwiftPM renames an executable's main, so the fuzzer's
// own main cannot be used.
#ifndef CFUZZER_SHIM_H
#define CFUZZER_SHIM_H
#include <stdint.h>
#include <stddef.h>
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
#endif
