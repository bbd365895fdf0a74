#include "kernels/kv_cache.h"

#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>

namespace tidal::kernels {

namespace {

constexpr size_t kAlignment = 64;

size_t round_up(size_t bytes) {
  return (bytes + kAlignment - 1) / kAlignment * kAlignment;
}

}  // namespace

const char* kv_dtype_name(KvDType dtype) {
  switch (dtype) {
    case KvDType::f32:
      return "f32";
    case KvDType::bf16:
      return "bf16";
    case KvDType::int8:
      return "int8";
  }
  return "unknown";
}

size_t kv_element_bytes(KvDType dtype) {
  switch (dtype) {
    case KvDType::f32:
      return 4;
    case KvDType::bf16:
      return 2;
    case KvDType::int8:
      return 1;
  }
  return 0;
}

size_t KvCacheSpec::data_bytes_per_token() const {
  return static_cast<size_t>(num_layers * 2 * num_kv_heads * head_dim) * kv_element_bytes(dtype);
}

size_t KvCacheSpec::scale_bytes_per_token() const {
  return dtype == KvDType::int8 ? static_cast<size_t>(num_layers * 2 * num_kv_heads) * sizeof(float)
                                : 0;
}

size_t KvCacheSpec::data_bytes() const {
  return static_cast<size_t>(num_blocks * block_size) * data_bytes_per_token();
}

size_t KvCacheSpec::scale_bytes() const {
  return static_cast<size_t>(num_blocks * block_size) * scale_bytes_per_token();
}

size_t KvCacheSpec::total_bytes() const {
  return round_up(data_bytes()) + scale_bytes();
}

void KvArena::FreeAligned::operator()(std::byte* p) const {
  std::free(p);
}

KvArena::KvArena(const KvCacheSpec& spec) : spec_(spec) {
  if (spec.num_layers <= 0 || spec.num_blocks <= 0 || spec.block_size <= 0 ||
      spec.num_kv_heads <= 0 || spec.head_dim <= 0) {
    throw std::invalid_argument("KvArena: every dimension of the spec must be positive");
  }
  const size_t bytes = round_up(spec.total_bytes());
  auto* memory = static_cast<std::byte*>(std::aligned_alloc(kAlignment, bytes));
  if (memory == nullptr) throw std::bad_alloc();
  std::memset(memory, 0, bytes);
  storage_.reset(memory);
}

KvCacheView KvArena::view() const {
  KvCacheView view;
  view.spec = spec_;
  view.data = storage_.get();
  if (spec_.dtype == KvDType::int8) {
    view.scales = reinterpret_cast<float*>(storage_.get() + round_up(spec_.data_bytes()));
  }
  return view;
}

}  // namespace tidal::kernels
