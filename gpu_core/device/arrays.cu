// A few array operations on the draw paths of sampled billboards and GPHAST sweeps
// (arrays.py says why they are not CuPy's own): a fill with a value, and a gather of some
// columns of a row-major block.

template <typename T>
__device__ void fill_n(T* __restrict__ a, const long long n, const T v)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x)
        a[i] = v;
}

extern "C" __global__ void fill_i32(int* a, const long long n, const int v) { fill_n(a, n, v); }
extern "C" __global__ void fill_i64(long long* a, const long long n, const long long v)
{
    fill_n(a, n, v);
}

// out[r][c] = block[r][cols[c]] for r < n, c < ncols (block: n x K, out: n x ncols)
template <typename T>
__device__ void gather(const T* __restrict__ block, const int K, const long long n,
                       const int* __restrict__ cols, const int ncols, T* __restrict__ out)
{
    const long long total = n * ncols;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < total;
         i += (long long)gridDim.x * blockDim.x) {
        const long long r = i / ncols;
        out[i] = block[r * K + cols[i - r * ncols]];
    }
}

extern "C" __global__ void gather_columns_i32(const int* block, const int K, const long long n,
                                              const int* cols, const int ncols, int* out)
{
    gather(block, K, n, cols, ncols, out);
}
extern "C" __global__ void gather_columns_i64(const long long* block, const int K,
                                              const long long n, const int* cols,
                                              const int ncols, long long* out)
{
    gather(block, K, n, cols, ncols, out);
}

// out[c] = sum over r < rows of a[r][c] (a: rows x cols doubles, row-major), the rows added
// in order: each thread walks one column down, neighbouring threads read neighbouring words
extern "C" __global__ void sum_rows_f64(const double* __restrict__ a, const long long rows,
                                        const long long cols, double* __restrict__ out)
{
    for (long long c = blockIdx.x * (long long)blockDim.x + threadIdx.x; c < cols;
         c += (long long)gridDim.x * blockDim.x) {
        double s = 0.0;
        for (long long r = 0; r < rows; ++r)
            s += a[r * cols + c];
        out[c] = s;
    }
}
