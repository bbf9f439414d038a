// Embedded header, included as "inc/defs.h".
#define SCALE 7
