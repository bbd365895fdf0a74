#include "models/safetensors.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>

#include <nlohmann/json.hpp>

#include "base/input_error.h"
#include "base/output_files.h"
#include "kernels/numeric/bf16.h"
#include "kernels/numeric/fp16.h"

namespace tidal::models {

namespace {

// Element sizes of the safetensors dtypes (the format's fixed list).
size_t dtype_text_bytes(const std::string& text) {
  static const std::map<std::string, size_t> sizes = {
      {"BOOL", 1}, {"U8", 1},  {"I8", 1},  {"F8_E4M3", 1}, {"F8_E5M2", 1},
      {"I16", 2},  {"U16", 2}, {"F16", 2}, {"BF16", 2},    {"I32", 4},
      {"U32", 4},  {"F32", 4}, {"I64", 8}, {"U64", 8},     {"F64", 8}};
  const auto it = sizes.find(text);
  return it == sizes.end() ? 0 : it->second;
}

TensorDType dtype_of_text(const std::string& text) {
  if (text == "F32") return TensorDType::f32;
  if (text == "BF16") return TensorDType::bf16;
  if (text == "F16") return TensorDType::f16;
  return TensorDType::other;
}

TensorInfo parse_tensor(const std::string& source, const std::string& name,
                        const nlohmann::json& entry, size_t data_size) {
  const std::string where = source + ": tensor '" + name + "': ";
  if (!entry.is_object()) throw InputError(where + "header entry must be an object");
  TensorInfo info;
  info.name = name;
  const auto dtype = entry.find("dtype");
  if (dtype == entry.end() || !dtype->is_string() || dtype_text_bytes(*dtype) == 0) {
    throw InputError(where + "missing or unknown dtype");
  }
  info.dtype_text = dtype->get<std::string>();
  info.dtype = dtype_of_text(info.dtype_text);
  const auto shape = entry.find("shape");
  if (shape == entry.end() || !shape->is_array()) throw InputError(where + "missing shape");
  for (const nlohmann::json& dim : *shape) {
    if (!dim.is_number_integer() || dim.get<int64_t>() < 0) {
      throw InputError(where + "shape must hold non-negative integers");
    }
    info.shape.push_back(dim.get<int64_t>());
  }
  const auto offsets = entry.find("data_offsets");
  if (offsets == entry.end() || !offsets->is_array() || offsets->size() != 2 ||
      !(*offsets)[0].is_number_unsigned() || !(*offsets)[1].is_number_unsigned()) {
    throw InputError(where + "data_offsets must be [begin, end]");
  }
  info.data_begin = (*offsets)[0].get<size_t>();
  info.data_end = (*offsets)[1].get<size_t>();
  if (info.data_begin > info.data_end || info.data_end > data_size) {
    throw InputError(where + "data_offsets [" + std::to_string(info.data_begin) + ", " +
                     std::to_string(info.data_end) + "] outside the data (" +
                     std::to_string(data_size) + " bytes)");
  }
  const size_t expected =
      static_cast<size_t>(info.num_elements()) * dtype_text_bytes(info.dtype_text);
  if (info.data_end - info.data_begin != expected) {
    throw InputError(where + "holds " + std::to_string(info.data_end - info.data_begin) +
                     " bytes but its shape and dtype need " + std::to_string(expected));
  }
  return info;
}

}  // namespace

const char* tensor_dtype_name(TensorDType dtype) {
  switch (dtype) {
    case TensorDType::f32:
      return "F32";
    case TensorDType::bf16:
      return "BF16";
    case TensorDType::f16:
      return "F16";
    case TensorDType::other:
      return "other";
  }
  return "other";
}

size_t tensor_dtype_bytes(TensorDType dtype) {
  switch (dtype) {
    case TensorDType::f32:
      return 4;
    case TensorDType::bf16:
    case TensorDType::f16:
      return 2;
    case TensorDType::other:
      return 0;
  }
  return 0;
}

int64_t TensorInfo::num_elements() const {
  int64_t count = 1;
  for (int64_t dim : shape) count *= dim;
  return count;
}

SafetensorsFile::SafetensorsFile(const std::filesystem::path& path) : path_(path) {
  const std::string source = path.string();
  const int fd = ::open(source.c_str(), O_RDONLY);
  if (fd < 0) throw InputError(source + ": cannot open safetensors file");
  struct stat status {};
  if (::fstat(fd, &status) != 0 || status.st_size < 8) {
    ::close(fd);
    throw InputError(source + ": not a safetensors file (shorter than its 8-byte header length)");
  }
  mapping_size_ = static_cast<size_t>(status.st_size);
  void* mapping = ::mmap(nullptr, mapping_size_, PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (mapping == MAP_FAILED) throw InputError(source + ": cannot map the file");
  mapping_ = static_cast<const std::byte*>(mapping);

  uint64_t header_size = 0;
  for (int i = 7; i >= 0; --i) {
    header_size = (header_size << 8) | static_cast<uint64_t>(mapping_[i]);
  }
  if (header_size > mapping_size_ - 8) {
    ::munmap(const_cast<std::byte*>(mapping_), mapping_size_);
    throw InputError(source + ": header length " + std::to_string(header_size) +
                     " exceeds the file size " + std::to_string(mapping_size_));
  }
  data_start_ = 8 + header_size;
  try {
    const char* header = reinterpret_cast<const char*>(mapping_ + 8);
    const nlohmann::json json = nlohmann::json::parse(header, header + header_size);
    if (!json.is_object()) throw InputError(source + ": header must be a JSON object");
    for (const auto& [name, entry] : json.items()) {
      if (name == "__metadata__") continue;
      tensors_.emplace(name, parse_tensor(source, name, entry, mapping_size_ - data_start_));
    }
  } catch (const nlohmann::json::exception& e) {
    ::munmap(const_cast<std::byte*>(mapping_), mapping_size_);
    throw InputError(source + ": invalid safetensors header: " + e.what());
  } catch (...) {
    ::munmap(const_cast<std::byte*>(mapping_), mapping_size_);
    throw;
  }
}

SafetensorsFile::~SafetensorsFile() {
  if (mapping_ != nullptr) ::munmap(const_cast<std::byte*>(mapping_), mapping_size_);
}

SafetensorsFile::SafetensorsFile(SafetensorsFile&& other) noexcept
    : path_(std::move(other.path_)),
      tensors_(std::move(other.tensors_)),
      mapping_(other.mapping_),
      mapping_size_(other.mapping_size_),
      data_start_(other.data_start_) {
  other.mapping_ = nullptr;
  other.mapping_size_ = 0;
}

const TensorInfo* SafetensorsFile::find(const std::string& name) const {
  const auto it = tensors_.find(name);
  return it == tensors_.end() ? nullptr : &it->second;
}

std::span<const std::byte> SafetensorsFile::bytes(const TensorInfo& tensor) const {
  return {mapping_ + data_start_ + tensor.data_begin, tensor.data_end - tensor.data_begin};
}

std::vector<float> SafetensorsFile::read_f32(const TensorInfo& tensor) const {
  const std::span<const std::byte> data = bytes(tensor);
  std::vector<float> values(tensor.num_elements());  // [product(shape)]
  switch (tensor.dtype) {
    case TensorDType::f32:
      std::memcpy(values.data(), data.data(), data.size());
      break;
    case TensorDType::bf16:
    case TensorDType::f16:
      for (size_t i = 0; i < values.size(); ++i) {
        uint16_t bits = 0;
        std::memcpy(&bits, data.data() + 2 * i, 2);
        values[i] = tensor.dtype == TensorDType::bf16 ? kernels::bf16_to_float(bits)
                                                      : kernels::fp16_to_float(bits);
      }
      break;
    case TensorDType::other:
      throw InputError(path_.string() + ": tensor '" + tensor.name + "': dtype " +
                       tensor.dtype_text + " is not supported (F32, BF16, F16)");
  }
  return values;
}

void write_safetensors(const std::filesystem::path& path, const std::vector<TensorToWrite>& tensors,
                       TensorDType dtype) {
  if (dtype != TensorDType::f32 && dtype != TensorDType::bf16) {
    throw InputError(path.string() + ": can only write F32 or BF16 tensors");
  }
  std::map<std::string, const TensorToWrite*> sorted;
  for (const TensorToWrite& tensor : tensors) sorted.emplace(tensor.name, &tensor);
  nlohmann::json header = nlohmann::json::object();
  header["__metadata__"] = {{"format", "pt"}};
  size_t offset = 0;
  for (const auto& [name, tensor] : sorted) {
    int64_t count = 1;
    for (int64_t dim : tensor->shape) count *= dim;
    const size_t size = static_cast<size_t>(count) * tensor_dtype_bytes(dtype);
    header[name] = {{"dtype", tensor_dtype_name(dtype)},
                    {"shape", tensor->shape},
                    {"data_offsets", {offset, offset + size}}};
    offset += size;
  }
  std::string header_text = header.dump();
  header_text.append((8 - header_text.size() % 8) % 8, ' ');  // data starts 8-byte aligned

  base::PendingFile file(path.string());  // in place only once complete
  std::ostream& out = file.stream();
  char length[8];
  for (int i = 0; i < 8; ++i) length[i] = static_cast<char>((header_text.size() >> (8 * i)) & 0xFF);
  out.write(length, 8);
  out.write(header_text.data(), static_cast<std::streamsize>(header_text.size()));
  std::vector<char> buffer;
  for (const auto& [name, tensor] : sorted) {
    int64_t count = 1;
    for (int64_t dim : tensor->shape) count *= dim;
    buffer.resize(static_cast<size_t>(count) * tensor_dtype_bytes(dtype));
    if (dtype == TensorDType::f32) {
      std::memcpy(buffer.data(), tensor->values, buffer.size());
    } else {
      for (int64_t i = 0; i < count; ++i) {
        const uint16_t bits = kernels::float_to_bf16(tensor->values[i]);
        std::memcpy(buffer.data() + 2 * i, &bits, 2);
      }
    }
    out.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
  }
  file.commit();
}

}  // namespace tidal::models
