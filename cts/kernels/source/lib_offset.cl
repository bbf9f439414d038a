// Compiled object of the link tests: offset().
#include "proto.h"
int offset(int v) { return v + OFFSET_BASE; }
