// safetensors files: 8-byte little-endian header length N, an N-byte JSON header
// {"name": {"dtype": "F32", "shape": [..], "data_offsets": [begin, end]}, "__metadata__": {..}},
// then the data (offsets relative to its start). Reading maps the file; every header
// problem is an InputError naming the file (and tensor).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <span>
#include <string>
#include <vector>

namespace tidal::models {

enum class TensorDType : uint8_t { f32, bf16, f16, other };

const char* tensor_dtype_name(TensorDType dtype);  // "F32", "BF16", "F16", "other"
size_t tensor_dtype_bytes(TensorDType dtype);      // 4, 2, 2 (0 for other)

struct TensorInfo {
  std::string name;
  TensorDType dtype = TensorDType::f32;
  std::string dtype_text;      // as written in the header ("F32", "I64", ...)
  std::vector<int64_t> shape;  // row-major
  size_t data_begin = 0;       // byte offsets into the data section
  size_t data_end = 0;

  int64_t num_elements() const;
};

// A read-only mapping of one .safetensors file.
class SafetensorsFile {
 public:
  explicit SafetensorsFile(const std::filesystem::path& path);
  ~SafetensorsFile();
  SafetensorsFile(const SafetensorsFile&) = delete;
  SafetensorsFile& operator=(const SafetensorsFile&) = delete;
  SafetensorsFile(SafetensorsFile&& other) noexcept;
  SafetensorsFile& operator=(SafetensorsFile&&) = delete;

  const std::filesystem::path& path() const { return path_; }
  const std::map<std::string, TensorInfo>& tensors() const { return tensors_; }
  const TensorInfo* find(const std::string& name) const;  // nullptr when absent
  std::span<const std::byte> bytes(const TensorInfo& tensor) const;
  // The tensor converted to fp32 (F32/BF16/F16); InputError for other dtypes.
  std::vector<float> read_f32(const TensorInfo& tensor) const;

 private:
  std::filesystem::path path_;
  std::map<std::string, TensorInfo> tensors_;
  const std::byte* mapping_ = nullptr;
  size_t mapping_size_ = 0;
  size_t data_start_ = 0;
};

struct TensorToWrite {
  std::string name;
  std::vector<int64_t> shape;
  const float* values = nullptr;  // [product(shape)]
};

// Writes tensors (sorted by name, data in that order) as F32 or BF16 (rounded to nearest
// even); the bytes depend only on the inputs. InputError when the file cannot be written.
void write_safetensors(const std::filesystem::path& path, const std::vector<TensorToWrite>& tensors,
                       TensorDType dtype);

}  // namespace tidal::models
