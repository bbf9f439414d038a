// Compiled object of the link tests: scale() with SCALE from the embedded header inc/defs.h.
#include "inc/defs.h"
#include "proto.h"
int scale(int v) { return v * SCALE; }
