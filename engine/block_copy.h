// Copies whole KV blocks between two arenas of the same shape (layers, block size, heads,
// head dim, dtype), e.g. the device arena and the host swap arena. A block id indexes the same
// block in every layer, so one block copy moves K and V of every layer (and the int8 scales).
#pragma once

#include <span>

#include "engine/kv/block_manager.h"
#include "kernels/backend_memory.h"
#include "kernels/kv_cache.h"

namespace tidal::engine {

// dst block copy.dst_block <- src block copy.src_block for each copy, in order.
// std::invalid_argument when the arenas' shapes differ or a block id is out of range.
// Both arenas in host memory.
void copy_kv_blocks(const kernels::KvCacheView& src, const kernels::KvCacheView& dst,
                    std::span<const kv::BlockCopy> copies);
// Both arenas in `memory` (e.g. a CUDA backend's device arena; copies ordered on its stream).
void copy_kv_blocks(const kernels::KvCacheView& src, const kernels::KvCacheView& dst,
                    std::span<const kv::BlockCopy> copies, kernels::BackendMemory& memory);

}  // namespace tidal::engine
