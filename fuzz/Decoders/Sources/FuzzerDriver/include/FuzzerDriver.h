// libFuzzer's entry for programs that have their own main: it parses libFuzzer's arguments from
// argc/argv and runs the callback on every input.
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
