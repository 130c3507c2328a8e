#ifndef LATCHKEY_BUILD_INFO_H
#define LATCHKEY_BUILD_INFO_H

/// The release this binary is: the repository's VERSION file, read when this target is compiled (a change to
/// the file rebuilds it). Trailing white space included; `latchkey --version` trims it.
const char *latchkey_build_version(void);

/// The commit it was built from: LATCHKEY_COMMIT in the environment of `swift build` (scripts/package sets
/// it from git), or the empty string for a build without it (`swift build`, `swift run`).
const char *latchkey_build_commit(void);

#endif
