// Reference driver for RegLab's occupancy calculator: runs NVIDIA's own calculator
// (cuda_occupancy.h from the nvidia-cuda-runtime-cu12 wheel, fetched at test time and never
// committed) on vectors read from stdin, one per line, and prints NVIDIA's answer per line.
//
// Input (whitespace-separated integers):
//   id major minor maxThreadsPerBlock maxThreadsPerSM regsPerBlock regsPerSM warpSize
//   smemPerBlock smemPerSM smemPerBlockOptin reservedSmemPerBlock
//   numRegs staticSmem optin maxDynamicSmem numBarriers cacheConfig carveout blockSize dynamicSmem
// Output:
//   id status blocks limitingFactors limitRegs limitSmem limitWarps limitBlocks limitBarriers
//   allocatedRegsPerBlock allocatedSmemPerBlock
#include <climits>
#include <cstdio>

#include "cuda_occupancy.h"

int main() {
    long long v[21];
    for (;;) {
        for (int i = 0; i < 21; ++i) {
            if (std::scanf("%lld", &v[i]) != 1) {
                return 0;
            }
        }
        cudaOccDeviceProp prop;
        prop.computeMajor = (int)v[1];
        prop.computeMinor = (int)v[2];
        prop.maxThreadsPerBlock = (int)v[3];
        prop.maxThreadsPerMultiprocessor = (int)v[4];
        prop.regsPerBlock = (int)v[5];
        prop.regsPerMultiprocessor = (int)v[6];
        prop.warpSize = (int)v[7];
        prop.sharedMemPerBlock = (size_t)v[8];
        prop.sharedMemPerMultiprocessor = (size_t)v[9];
        prop.numSms = 1;
        prop.sharedMemPerBlockOptin = (size_t)v[10];
        prop.reservedSharedMemPerBlock = (size_t)v[11];

        cudaOccFuncAttributes attr;
        attr.maxThreadsPerBlock = INT_MAX;
        attr.numRegs = (int)v[12];
        attr.sharedSizeBytes = (size_t)v[13];
        attr.partitionedGCConfig = PARTITIONED_GC_OFF;
        attr.shmemLimitConfig = v[14] ? FUNC_SHMEM_LIMIT_OPTIN : FUNC_SHMEM_LIMIT_DEFAULT;
        attr.maxDynamicSharedSizeBytes = (size_t)v[15];
        attr.numBlockBarriers = (int)v[16];

        cudaOccDeviceState state;
        state.cacheConfig = (cudaOccCacheConfig)v[17];
        state.carveoutConfig = (int)v[18];

        cudaOccResult result = {};
        cudaOccError status =
            cudaOccMaxActiveBlocksPerMultiprocessor(&result, &prop, &attr, &state, (int)v[19], (size_t)v[20]);
        std::printf("%lld %d %d %u %d %d %d %d %d %d %zu\n", v[0], (int)status, result.activeBlocksPerMultiprocessor,
                    result.limitingFactors, result.blockLimitRegs, result.blockLimitSharedMem,
                    result.blockLimitWarps, result.blockLimitBlocks, result.blockLimitBarriers,
                    result.allocatedRegistersPerBlock, result.allocatedSharedMemPerBlock);
    }
}
