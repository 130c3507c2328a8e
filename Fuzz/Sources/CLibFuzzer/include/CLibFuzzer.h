#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver (compiler-rt's FuzzerInterface.h): runs the fuzzing loop with `callback` as the
/// target, as libFuzzer's own `main` would. Called from Swift because SwiftPM's executables bring their
/// own `main`.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

/// LeakSanitizer's switches (compiler-rt's sanitizer/lsan_interface.h): objects allocated between them
/// are never reported. The targets build their fixed state (trust anchors, relying party) once, between
/// them: Swift keeps such globals behind tagged pointers LeakSanitizer does not follow.
void __lsan_disable(void);
void __lsan_enable(void);
