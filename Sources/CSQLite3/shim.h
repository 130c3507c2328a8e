// The system's SQLite (Debian: libsqlite3-dev), for Latchkey's synchronous SQLite driver.
#include <sqlite3.h>
