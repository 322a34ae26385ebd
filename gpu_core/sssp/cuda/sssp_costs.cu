// Least costs of a finished search, folded (gpu_core/sssp/costs.py): only the outputs'
// costs leave the device. The outputs are the vertices not listed as extra, in order
// (keep[i]: output i's vertex; none: every vertex); an extra vertex's cost also counts
// for output into[j]. Costs are key >> hb, all ones (-1 as int64) where unreached, so the
// unsigned atomicMin of the fold never picks an unreached copy over a reached output.

extern "C" __global__ void costs_gather(const int n_out, const int* __restrict__ keep,
                                        const u64* __restrict__ C, const int hb, u64* out)
{
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n_out;
       i += stride) {
    const u64 k = C[keep ? keep[i] : (int)i];
    out[i] = k >= KEY_INF ? ~0ULL : k >> hb;
  }
}

extern "C" __global__ void costs_fold(const int m, const int* __restrict__ extra,
                                      const int* __restrict__ into,
                                      const u64* __restrict__ C, const int hb, u64* out)
{
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x; j < m; j += stride) {
    const u64 k = C[extra[j]];
    if (k < KEY_INF) atomicMin(out + into[j], k >> hb);
  }
}
