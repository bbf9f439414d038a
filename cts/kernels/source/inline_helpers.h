// Issue 21: plain inline helpers in an embedded header that two compiled programs include;
// neither provides an external definition, so each keeps its own inline one.
inline int clamp_add(int v, int k) { return min(max(v + k, -100), 100); }
inline int clamp_twice(int v) { return clamp_add(clamp_add(v, 7), 7); }
