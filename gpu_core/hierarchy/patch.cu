// The GPHAST sweep's downward lists on the device brought to a partially re-customized
// Hierarchy (patch_cuda.py) without uploading them again: only the rewritten segments
// of the dirty vertices come from the host.
//
// cch_patch_rows: a warp per sweep id x (lanes over its segment); a clean vertex's
// segment moves from the old lists (its length is unchanged, only its start shifted), a
// dirty one's (map[x] = k >= 0) comes from the uploaded segment k. Each new position is
// written by exactly one lane: no races. nw32 (the 32-bit weights) is written only with
// has32 (else any array stands in).
// cch_patch_weights: the same arcs, new weights at the given positions (of a copy).

extern "C" __global__ void cch_patch_rows(const long long n, const long long* __restrict__ optr,
                                          const int* __restrict__ osrc,
                                          const long long* __restrict__ ow,
                                          const long long* __restrict__ nptr,
                                          const int* __restrict__ map,
                                          const long long* __restrict__ seg_ptr,
                                          const int* __restrict__ seg_src,
                                          const long long* __restrict__ seg_w,
                                          int* __restrict__ nsrc, long long* __restrict__ nw,
                                          int* __restrict__ nw32, const int has32)
{
    const long long x = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const int lane = threadIdx.x & 31;
    if (x >= n) return;
    const long long b0 = nptr[x], len = nptr[x + 1] - b0;
    const int k = map[x];
    const long long a0 = k < 0 ? optr[x] : seg_ptr[k];
    const int* __restrict__ s = k < 0 ? osrc : seg_src;
    const long long* __restrict__ w = k < 0 ? ow : seg_w;
    for (long long i = lane; i < len; i += 32) {
        nsrc[b0 + i] = s[a0 + i];
        const long long v = w[a0 + i];
        nw[b0 + i] = v;
        if (has32) nw32[b0 + i] = (int)v;
    }
}

extern "C" __global__ void cch_patch_weights(const long long cnt,
                                             const long long* __restrict__ pos,
                                             const long long* __restrict__ val,
                                             long long* __restrict__ w, int* __restrict__ w32,
                                             const int has32)
{
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= cnt) return;
    w[pos[i]] = val[i];
    if (has32) w32[pos[i]] = (int)val[i];
}
