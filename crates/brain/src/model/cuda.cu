// loopd's fused CUDA kernels for decoding one token at a time. A decode
// step on a GPU is bound by how many kernels it launches, not by arithmetic:
// each kernel here replaces several of candle's generic ones.

__device__ __forceinline__ float warp_sum(float x) {
    for (int offset = 16; offset > 0; offset >>= 1) {
        x += __shfl_xor_sync(0xffffffffu, x, offset);
    }
    return x;
}

__device__ __forceinline__ float warp_max(float x) {
    for (int offset = 16; offset > 0; offset >>= 1) {
        x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, offset));
    }
    return x;
}

// The maximum (or sum) of x over the block, returned to every thread.
// `spare` holds 32 floats.
template <bool MAX>
__device__ float block_reduce(float x, float* spare) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int warps = (blockDim.x + 31) >> 5;
    x = MAX ? warp_max(x) : warp_sum(x);
    if (lane == 0) {
        spare[warp] = x;
    }
    __syncthreads();
    x = lane < warps ? spare[lane] : (MAX ? -INFINITY : 0.0f);
    x = MAX ? warp_max(x) : warp_sum(x);
    __syncthreads();
    return x;
}

// Attention of one query row per head over `len` cached keys and values.
// One block per query head; query head h reads key/value head h / group.
// Key j of key/value head g is at k + g * head_stride + j * head_dim
// (values alike). The query is multiplied by `scale` first. Dynamic shared
// memory: head_dim + len floats. Needs head_dim <= blockDim.x <= 1024.
//
// A decode step is latency-bound: every phase keeps many independent loads
// in flight (a thread per key for the scores, four keys at a time per
// thread for the values) rather than walking keys one after another.
extern "C" __global__ void loopd_decode_attention(
    const float* __restrict__ q, const float* __restrict__ k, const float* __restrict__ v,
    float* __restrict__ out, int head_dim, int group, int len, long long head_stride,
    float scale) {
    extern __shared__ float shared[];
    __shared__ float spare[32];
    __shared__ float partial[1024];
    float* query = shared;
    float* scores = shared + head_dim;
    const int head = blockIdx.x;
    const float* keys = k + (long long)(head / group) * head_stride;
    const float* values = v + (long long)(head / group) * head_stride;

    for (int d = threadIdx.x; d < head_dim; d += blockDim.x) {
        query[d] = q[head * head_dim + d] * scale;
    }
    __syncthreads();

    // Scores: a thread per key; every thread reads the query in step, so
    // shared memory broadcasts it.
    for (int j = threadIdx.x; j < len; j += blockDim.x) {
        const float* key = keys + (long long)j * head_dim;
        float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
        int d = 0;
        for (; d + 3 < head_dim; d += 4) {
            s0 += query[d] * key[d];
            s1 += query[d + 1] * key[d + 1];
            s2 += query[d + 2] * key[d + 2];
            s3 += query[d + 3] * key[d + 3];
        }
        for (; d < head_dim; ++d) {
            s0 += query[d] * key[d];
        }
        scores[j] = (s0 + s1) + (s2 + s3);
    }
    __syncthreads();

    // Softmax over the scores.
    float top = -INFINITY;
    for (int j = threadIdx.x; j < len; j += blockDim.x) {
        top = fmaxf(top, scores[j]);
    }
    top = block_reduce<true>(top, spare);
    float sum = 0.0f;
    for (int j = threadIdx.x; j < len; j += blockDim.x) {
        const float e = expf(scores[j] - top);
        scores[j] = e;
        sum += e;
    }
    sum = block_reduce<false>(sum, spare);

    // Weighted sum of values: `parts` groups of threads each take every
    // parts-th key, one thread per element of the head (a warp reads
    // consecutive elements of one value row).
    const int parts = blockDim.x / head_dim;
    const int d = threadIdx.x % head_dim, part = threadIdx.x / head_dim;
    if (part < parts) {
        const float* column = values + d;
        const long long step = (long long)parts * head_dim;
        float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
        int j = part;
        for (; j + 3 * parts < len; j += 4 * parts) {
            const float* row = column + (long long)j * head_dim;
            a0 += scores[j] * row[0];
            a1 += scores[j + parts] * row[step];
            a2 += scores[j + 2 * parts] * row[2 * step];
            a3 += scores[j + 3 * parts] * row[3 * step];
        }
        for (; j < len; j += parts) {
            a0 += scores[j] * column[(long long)j * head_dim];
        }
        partial[part * head_dim + d] = (a0 + a1) + (a2 + a3);
    }
    __syncthreads();
    if (threadIdx.x < head_dim) {
        float acc = 0.0f;
        for (int p = 0; p < parts; ++p) {
            acc += partial[p * head_dim + threadIdx.x];
        }
        out[head * head_dim + threadIdx.x] = acc / sum;
    }
}

// out = silu(gate) * up over `rows` rows of `width`; row r of gate starts
// at gate + r * gate_row_stride (up alike); out is contiguous.
extern "C" __global__ void loopd_silu_times(
    const float* __restrict__ gate, const float* __restrict__ up, float* __restrict__ out,
    int rows, int width, long long gate_row_stride, long long up_row_stride) {
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (long long)rows * width) {
        return;
    }
    const long long r = i / width, c = i % width;
    const float g = gate[r * gate_row_stride + c];
    out[i] = g / (1.0f + expf(-g)) * up[r * up_row_stride + c];
}

// Queries, keys and values of one new position, finished in one kernel: the
// projection's biases added (where `biased`), the first `rope_dims` values of
// each query and key head turned by the position's angles (`cos`, `sin`:
// rope_dims / 2 each; `adjacent` pairs 2i, 2i+1, else i, i + rope_dims / 2),
// the queries written to `q_out` and the keys and values straight into the
// cache, whose head h starts at k_cache + h * head_stride (the position's
// row, values alike). One block per head: query heads, then key heads, then
// value heads.
extern "C" __global__ void loopd_rope_store(
    const float* __restrict__ q, const float* __restrict__ k, const float* __restrict__ v,
    const float* __restrict__ q_bias, const float* __restrict__ k_bias,
    const float* __restrict__ v_bias, int biased, const float* __restrict__ cos,
    const float* __restrict__ sin, float* __restrict__ q_out, float* __restrict__ k_cache,
    float* __restrict__ v_cache, int heads, int kv_heads, int head_dim, int rope_dims,
    int adjacent, long long head_stride) {
    const int b = blockIdx.x;
    const float* src;
    const float* bias;
    float* dst;
    bool turn = true;
    if (b < heads) {
        src = q + b * head_dim;
        bias = q_bias + b * head_dim;
        dst = q_out + b * head_dim;
    } else if (b < heads + kv_heads) {
        const int h = b - heads;
        src = k + h * head_dim;
        bias = k_bias + h * head_dim;
        dst = k_cache + h * head_stride;
    } else {
        const int h = b - heads - kv_heads;
        src = v + h * head_dim;
        bias = v_bias + h * head_dim;
        dst = v_cache + h * head_stride;
        turn = false;
    }
    const int half = rope_dims / 2;
    for (int d = threadIdx.x; d < head_dim; d += blockDim.x) {
        if (turn && d < half) {
            const int i = adjacent ? 2 * d : d;
            const int j = adjacent ? 2 * d + 1 : d + half;
            const float x0 = biased ? src[i] + bias[i] : src[i];
            const float x1 = biased ? src[j] + bias[j] : src[j];
            dst[i] = x0 * cos[d] - x1 * sin[d];
            dst[j] = x0 * sin[d] + x1 * cos[d];
        } else if (!turn || d >= rope_dims) {
            dst[d] = biased ? src[d] + bias[d] : src[d];
        }
    }
}

// The residual sum and its RMS norm in one kernel: for each of `rows` rows
// of `width`, out[r] = x[r] + y[r] and out[rows + r] = that sum scaled to a
// root mean square of one (eps added to the mean square) times `weight`.
// One block per row.
extern "C" __global__ void loopd_add_rms_norm(
    const float* __restrict__ x, const float* __restrict__ y, const float* __restrict__ weight,
    float* __restrict__ out, int rows, int width, float eps) {
    __shared__ float spare[32];
    const int r = blockIdx.x;
    const float* xr = x + (long long)r * width;
    const float* yr = y + (long long)r * width;
    float* sum = out + (long long)r * width;
    float* normed = out + ((long long)rows + r) * width;
    float squares = 0.0f;
    for (int d = threadIdx.x; d < width; d += blockDim.x) {
        const float s = xr[d] + yr[d];
        sum[d] = s;
        squares += s * s;
    }
    squares = block_reduce<false>(squares, spare);
    const float scale = rsqrtf(squares / width + eps);
    for (int d = threadIdx.x; d < width; d += blockDim.x) {
        normed[d] = sum[d] * scale * weight[d];
    }
}
