// Issue 21: the third program of the link. Its `extern` declaration makes the header's
// inline clamp_add an external definition here (C99 6.7.4), which the other programs'
// calls may then use; tripled() is an ordinary external function.
#include "inline_helpers.h"

extern int clamp_add(int v, int k);

int tripled(int v) { return 3 * v; }
