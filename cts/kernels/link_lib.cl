// Library module for the link test: exports `scale` and `offset_by` (LinkageAttributes Export).
int scale(int v, int by) { return v * by + 1; }
int offset_by(int v) { return v + 1000; }
