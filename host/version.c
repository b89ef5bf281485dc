/* Runtime version of the loaded library. */
#include "internal.h"

#define CLPOOL_STR2(x) #x
#define CLPOOL_STR(x) CLPOOL_STR2(x)

const char *clpool_version_string(void)
{
    return CLPOOL_STR(CLPOOL_VERSION_MAJOR) "." CLPOOL_STR(CLPOOL_VERSION_MINOR) "." CLPOOL_STR(CLPOOL_VERSION_PATCH);
}

unsigned clpool_version_number(void)
{
    return CLPOOL_VERSION_NUMBER;
}
