// The version and commit `latchkey --version` prints (BuildInfo.swift). C because a C define carries a
// string where a Swift one cannot, and #embed reads VERSION at compile time with the file as a dependency:
// nothing is generated in the work tree, so packaging leaves `git status` clean.
#include "LatchkeyBuildInfo.h"

#pragma clang diagnostic ignored "-Wc23-extensions"  // #embed, in clang's C17 mode too

static const char version[] = {
#embed "../../VERSION"
    , 0
};

// Package.swift defines it from LATCHKEY_COMMIT when that is set.
#ifndef LATCHKEY_COMMIT
#define LATCHKEY_COMMIT ""
#endif

const char *latchkey_build_version(void) { return version; }

const char *latchkey_build_commit(void) { return LATCHKEY_COMMIT; }
