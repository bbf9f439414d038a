// Bad input: one of two compiled programs that both define duplicate_helper().
int duplicate_helper(int v) { return v + 1; }

kernel void dup_user_a(global int *a) { a[get_global_id(0)] = duplicate_helper(1); }
