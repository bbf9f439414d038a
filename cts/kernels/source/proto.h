// Embedded header, included as "proto.h".
#define OFFSET_BASE 500
int scale(int v);
int offset(int v);
