// One explicit step of the 2D heat equation on a block of rows: a 5-point stencil. Row 0 and
// row rows+1 of `u` are halo rows (the neighbours' edge rows, or the fixed boundary); the
// first and last columns are fixed boundary values and are copied unchanged.
//
// No contraction into fma: every rank must round exactly as a one-rank run does.
#pragma OPENCL FP_CONTRACT OFF

kernel void heat_step(global const float *u, global float *next, int nx, int rows, float alpha)
{
    int x = get_global_id(0);
    int y = get_global_id(1) + 1; // interior rows are 1..rows
    if (x >= nx || y > rows)
        return;
    int c = y * nx + x;
    if (x == 0 || x == nx - 1) {
        next[c] = u[c];
        return;
    }
    float around = ((u[c - nx] + u[c + nx]) + u[c - 1]) + u[c + 1];
    next[c] = u[c] + alpha * (around - 4.0f * u[c]);
}
