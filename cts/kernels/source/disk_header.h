// Copied by the tests into a temporary -I directory; the cache tests edit DISK_VALUE.
#define DISK_VALUE 4100
