// Bad input: the other program defining duplicate_helper().
int duplicate_helper(int v) { return v + 2; }
